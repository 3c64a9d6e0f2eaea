import HeraldConfiguration
import HeraldCore
import Foundation
import Testing

/// Reading the YAML file: every key of `interface.md`, and the errors that name the key.
@Suite struct FileTests {
    @Test func interfaceExampleLoadsEveryKey() throws {
        let loaded = try Fixture.load(Fixture.interfaceExample)
        let configuration = loaded.configuration
        // auth, udp and acl.publish together: no UDP warning.
        #expect(loaded.warnings.isEmpty)

        let server = configuration.server
        #expect(server.http == HeraldConfiguration.Endpoint(host: "0.0.0.0", port: 8080))
        #expect(server.udp == HeraldConfiguration.Endpoint(host: "0.0.0.0", port: 8080))
        #expect(try DatabaseLocation.parse(server.database) == .sqlite(path: "herald.db"))
        #expect(server.accessLog == false)
        #expect(server.auth == ["admin": .init(password: "secret", realms: [.register, .publish, .listen, .admin])])
        #expect(server.acl == [.publish: ["127.0.0.1", "::1", "10.0.0.0/8"]])
        #expect(configuration.outbound.caFile == "extra-roots.pem")
        #expect(configuration.delivery.maxFailures == 5)

        #expect(Array(configuration.providers.keys) == ["apns", "gcm", "webpush", "wns-toast", "mpns-toast", "http"])
        #expect(configuration.providers.values.map(\.kind) == ["apns", "fcm", "webpush", "wns", "mpns", "http"])
        let apns = try #require(configuration.providers["apns"]).options
        #expect(apns.path == "providers.apns")
        #expect(try apns.string("kind") == "apns")
        #expect(try apns.string("ca_file") == "sim-ca.pem")
        #expect(try apns.string("endpoint") == "https://127.0.0.1:2197")
        #expect(Array(apns.values.keys) == ["kind", "environment", "endpoint", "ca_file", "topic", "team_id", "key_id", "key_file"])
        let wns = try #require(configuration.providers["wns-toast"]).options
        #expect(wns.path == "providers.wns-toast")
        #expect(try wns.string("client_secret") == "...")

        let compat = configuration.compat
        #expect(compat.apnsMS?.path == "compat.apns_ms")
        #expect(try compat.apnsMS?.int("port") == 9090)
        #expect(try compat.choominator?.int("notification_port") == 7874)
        #expect(try compat.push2mob?.string("device_token_format") == "hex")
        #expect(try compat.sujPusher?.section("api_keys")?.string("<gcm api key>") == "gcm")
        #expect(try compat.sujPusher?.section("apns_endpoints")?.string("sandbox") == "...")
        #expect(try compat.gorush?.string("android_provider") == "gcm")
    }

    @Test(arguments: [
        ("serve:\n  http: {}\n", "serve"),
        ("server:\n  htpp: {port: 80}\n", "server.htpp"),
        ("server:\n  http:\n    prot: 80\n", "server.http.prot"),
        ("server:\n  auth:\n    admin: {pasword: x, realms: [admin]}\n", "server.auth.admin.pasword"),
        ("delivery:\n  max_failure: 3\n", "delivery.max_failure"),
        ("log: {level: info, format: json}\n", "log.format"),
        ("compat:\n  gorush: {ios: apns}\n", "compat.gorush.ios"),
        ("compat:\n  suj_pusher: {redis: \"redis://h:6379/0\", apns_endpoints: {staging: x}}\n", "compat.suj_pusher.apns_endpoints.staging"),
        ("compat:\n  pushy: {}\n", "compat.pushy"),
        ("compat:\n  matrix:\n    apps:\n      im.example: {provider: http, sound: x}\n", "compat.matrix.apps.im.example.sound"),
    ])
    func unknownKeysAreErrorsNamingTheExactKey(_ yaml: String, _ key: String) {
        let error = Fixture.failure(yaml)
        #expect(error?.key == key)
        #expect(error?.problem.hasPrefix("unknown key") == true)
    }

    @Test func aTypoGetsASuggestion() {
        let error = Fixture.failure("server:\n  htpp: {port: 80}\n")
        #expect(error?.problem == "unknown key (did you mean \"http\"?)")
        #expect(error?.description == "server.htpp: unknown key (did you mean \"http\"?)")
    }

    @Test(arguments: ["0", "65536", "-1", "abc", "80.5", "[80]"])
    func aBadPortNamesTheKey(_ port: String) {
        let error = Fixture.failure("server:\n  http:\n    port: \(port)\n")
        #expect(error?.key == "server.http.port")
    }

    @Test func udpNeedsAPortAndDefaultsItsHost() throws {
        #expect(Fixture.failure("server:\n  udp: {host: 127.0.0.1}\n") == ConfigurationError(key: "server.udp.port", "is required"))
        let udp = try Fixture.load("server:\n  udp: {port: 9999}\n").configuration.server.udp
        #expect(udp == HeraldConfiguration.Endpoint(host: "0.0.0.0", port: 9999))
    }

    @Test(arguments: [
        ("log: {level: loud}\n", "log.level"),
        ("event_source: {enabled: maybe}\n", "event_source.enabled"),
        ("server: {access_log: 2}\n", "server.access_log"),
        ("delivery: {max_failures: -1}\n", "delivery.max_failures"),
        ("delivery: {max_attempts: 0}\n", "delivery.max_attempts"),
        ("delivery: {batch_size: 0}\n", "delivery.batch_size"),
        ("delivery: {in_flight: -5}\n", "delivery.in_flight"),
        ("delivery: {concurrent_jobs: many}\n", "delivery.concurrent_jobs"),
        ("delivery: {retry_delay: -1}\n", "delivery.retry_delay"),
        ("delivery: {lease_duration: 0}\n", "delivery.lease_duration"),
        ("delivery: {max_retry_delay: 1e300}\n", "delivery.max_retry_delay"),
        ("delivery: {retry_delay: 10, max_retry_delay: 5}\n", "delivery.max_retry_delay"),
        ("server: {database: \"mysql://db/herald\"}\n", "server.database"),
        ("server: text\n", "server"),
        ("server:\n  acl: {pubish: [127.0.0.1]}\n", "server.acl.pubish"),
        ("server:\n  acl: {publish: [\"\"]}\n", "server.acl.publish"),
        ("server:\n  auth:\n    admin: {password: x, realms: [admin, root]}\n", "server.auth.admin.realms"),
        ("server:\n  auth:\n    admin: {realms: [admin]}\n", "server.auth.admin.password"),
        ("server:\n  auth:\n    admin: {password: x}\n", "server.auth.admin.realms"),
        ("server:\n  auth:\n    \"a:b\": {password: x, realms: [admin]}\n", "server.auth.a:b"),
        ("server:\n  auth:\n    admin:\n", "server.auth.admin"),
        ("compat:\n  gorush: {ios_provider: apns}\n", "compat.gorush.ios_provider"),
        ("compat:\n  apns_ms: {provider: http, port: 0}\n", "compat.apns_ms.port"),
        ("compat:\n  push2mob: {device_token_format: binary}\n", "compat.push2mob.device_token_format"),
        // A GCM API key is a secret: the error names the section, not the key.
        ("compat:\n  suj_pusher: {api_keys: {AIzaSecret: nope}}\n", "compat.suj_pusher.api_keys"),
        ("compat:\n  gorush: [apns]\n", "compat.gorush"),
        ("compat:\n  matrix:\n    apps:\n      im.example: {push_type: alert}\n", "compat.matrix.apps.im.example.provider"),
        ("compat:\n  matrix:\n    apps:\n      im.example: {provider: nowhere}\n", "compat.matrix.apps.im.example.provider"),
    ])
    func aBadValueNamesTheKey(_ yaml: String, _ key: String) {
        #expect(Fixture.failure(yaml)?.key == key)
    }

    @Test func durationsAreSecondsWithDecimals() throws {
        let delivery = try Fixture.load("delivery: {retry_delay: 0.05, max_retry_delay: 2, lease_duration: 1.5, max_failures: 0}\n").configuration.delivery
        #expect(delivery.retryDelay == .milliseconds(50))
        #expect(delivery.maxRetryDelay == .seconds(2))
        #expect(delivery.leaseDuration == .milliseconds(1500))
        #expect(delivery.maxFailures == 0)
    }

    @Test func aMissingFileIsAnErrorNamingIt() {
        let path = Fixture.makeDirectory() + "/absent.yaml"
        let error = Fixture.failureLoading(file: path)
        #expect(error?.key == "--config")
        #expect(error?.problem == "cannot read \(path): no such file")
    }

    @Test func aDirectoryIsNotAConfigurationFile() {
        let path = Fixture.makeDirectory()
        let error = Fixture.failureLoading(file: path)
        #expect(error?.key == "--config")
        #expect(error?.problem.contains(path) == true)
    }

    @Test func aYAMLSyntaxErrorNamesTheFileAndLine() {
        let path = Fixture.write("server:\n  http:\n    port: [8080\nlog: {}\n")
        let error = Fixture.failureLoading(file: path)
        #expect(error?.key == path)
        #expect(error?.problem.contains("line 4") == true)
    }

    @Test func aDuplicateKeyIsAnError() {
        let path = Fixture.write("log: {level: info}\nlog: {level: debug}\n")
        let error = Fixture.failureLoading(file: path)
        #expect(error?.key == path)
        #expect(error?.problem.contains("duplicate key \"log\"") == true)
    }

    @Test func theTopLevelMustBeAMapping() {
        let path = Fixture.write("- server\n")
        #expect(Fixture.failureLoading(file: path)?.key == path)
    }

    @Test func aQuotedNullIsText() throws {
        let configuration = try Fixture.load("server: {database: \"null\"}\n").configuration
        #expect(configuration.server.database == "null")
    }

    @Test func mergeKeysShareProviderOptions() throws {
        let yaml = """
            providers:
              wns-toast: &wns
                kind: wns
                type: toast
                client_id: id
              wns-tile:
                <<: *wns
                type: tile
            """
        let providers = try Fixture.load(yaml).configuration.providers
        let tile = try #require(providers["wns-tile"]).options
        #expect(try tile.string("type") == "tile")
        #expect(try tile.string("client_id") == "id")
        #expect(providers["wns-tile"]?.kind == "wns")
    }

    @Test func aPasswordFileIsReadWithoutItsTrailingNewline() throws {
        let secret = Fixture.write("s3cret\n", name: "password")
        let yaml = "server:\n  auth:\n    admin: {password_file: \(secret), realms: [admin]}\n"
        let user = try #require(try Fixture.load(yaml).configuration.server.auth["admin"])
        #expect(user.password == "s3cret")
        #expect(user.realms == [.admin])
    }

    @Test func aPasswordFileWithAWindowsLineEndingLosesOnlyTheEnding() throws {
        let secret = Fixture.write("s3cret\r\n", name: "password-crlf")
        let yaml = "server:\n  auth:\n    admin: {password_file: \(secret), realms: [admin]}\n"
        #expect(try Fixture.load(yaml).configuration.server.auth["admin"]?.password == "s3cret")
    }

    @Test func aPrintedConfigurationDoesNotShowPasswords() throws {
        let server = try Fixture.load("server:\n  auth:\n    admin: {password: hunter2, realms: [admin, publish]}\n").configuration.server
        #expect(server.auth["admin"]?.password == "hunter2")
        #expect(!String(describing: server).contains("hunter2"))
        #expect(!String(reflecting: server).contains("hunter2"))
        #expect(String(describing: server.auth["admin"]!) == "User(password: <redacted>, realms: [admin, publish])")
    }

    @Test func passwordAndPasswordFileExcludeEachOther() {
        let yaml = "server:\n  auth:\n    admin: {password: a, password_file: /nonexistent, realms: [admin]}\n"
        #expect(Fixture.failure(yaml)?.key == "server.auth.admin.password_file")
    }

    @Test func anUnreadablePasswordFileNamesTheKey() {
        let yaml = "server:\n  auth:\n    admin: {password_file: /nonexistent/pw, realms: [admin]}\n"
        let error = Fixture.failure(yaml)
        #expect(error?.key == "server.auth.admin.password_file")
        #expect(error?.problem.contains("/nonexistent/pw") == true)
    }

    @Test func udpWithAuthAndNoPublishACLIsWarnedAbout() throws {
        let open = "server:\n  udp: {port: 8081}\n  auth:\n    u: {password: p, realms: [publish]}\n"
        #expect(try Fixture.load(open).warnings == ["UDP events are accepted from any address"])
        #expect(try Fixture.load(open + "  acl: {publish: [127.0.0.1]}\n").warnings.isEmpty)
        #expect(try Fixture.load("server:\n  udp: {port: 8081}\n").warnings.isEmpty)
    }
}
