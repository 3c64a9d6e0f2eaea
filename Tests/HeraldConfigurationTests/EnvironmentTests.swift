import HeraldConfiguration
import HeraldCore
import Testing

/// `HERALD_*` variables and flags: flags win over the environment, which wins over the file.
@Suite struct EnvironmentTests {
    @Test func nestedKeysAreOverridden() throws {
        let loaded = try Fixture.load(
            "server:\n  http: {port: 8081}\nevent_source: {enabled: true}\n",
            environment: [
                "HERALD_SERVER_HTTP_PORT": "9000",
                "HERALD_SERVER_HTTP_HOST": "127.0.0.1",
                "HERALD_EVENT_SOURCE_ENABLED": "false",
                "HERALD_LOG_LEVEL": "debug",
                "HERALD_SERVER_ACCESS_LOG": "yes",
                "HERALD_DELIVERY_RETRY_DELAY": "0.05",
                "HERALD_DELIVERY_MAX_FAILURES": "0",
                "HERALD_OUTBOUND_CA_FILE": "roots.pem",
                "PATH": "/usr/bin",
            ]
        )
        let configuration = loaded.configuration
        #expect(loaded.warnings.isEmpty)
        #expect(configuration.server.http == HeraldConfiguration.Endpoint(host: "127.0.0.1", port: 9000))
        #expect(configuration.eventSource.enabled == false)
        #expect(configuration.log.level == .debug)
        #expect(configuration.server.accessLog)
        #expect(configuration.delivery.retryDelay == .milliseconds(50))
        #expect(configuration.delivery.maxFailures == 0)
        #expect(configuration.outbound.caFile == "roots.pem")
    }

    @Test func aKeyAbsentFromTheFileCanBeSet() throws {
        let configuration = try Fixture.load(nil, environment: ["HERALD_SERVER_UDP_PORT": "9001"]).configuration
        #expect(configuration.server.udp == HeraldConfiguration.Endpoint(host: "0.0.0.0", port: 9001))
    }

    @Test func listsAreCommaSeparated() throws {
        let configuration = try Fixture.load(
            "server:\n  auth:\n    admin: {password: old, realms: [admin]}\n",
            environment: [
                "HERALD_SERVER_ACL_PUBLISH": "10.0.0.0/8, ::1",
                "HERALD_SERVER_AUTH_ADMIN_PASSWORD": "new",
                "HERALD_SERVER_AUTH_ADMIN_REALMS": "publish,admin",
            ]
        ).configuration
        #expect(configuration.server.acl[.publish] == ["10.0.0.0/8", "::1"])
        #expect(configuration.server.auth["admin"] == .init(password: "new", realms: [.publish, .admin]))
    }

    @Test func aDashedProviderNameIsWrittenWithUnderscores() throws {
        let configuration = try Fixture.load(
            Fixture.interfaceExample,
            environment: ["HERALD_PROVIDERS_WNS_TOAST_TYPE": "tile", "HERALD_PROVIDERS_APNS_TEAM_ID": "TEAM2"]
        ).configuration
        #expect(try configuration.providers["wns-toast"]?.options.string("type") == "tile")
        #expect(try configuration.providers["mpns-toast"]?.options.string("type") == "toast")
        #expect(try configuration.providers["apns"]?.options.string("team_id") == "TEAM2")
    }

    @Test func aProviderOptionAbsentFromTheFileCanBeSet() throws {
        // The default provider is there to be reached, and `ca_file` is a key of every kind.
        let configuration = try Fixture.load(nil, environment: ["HERALD_PROVIDERS_HTTP_CA_FILE": "/etc/ca.pem"]).configuration
        #expect(try configuration.providers["http"]?.options.string("ca_file") == "/etc/ca.pem")
    }

    @Test func aProviderListOptionFromTheEnvironmentIsAList() throws {
        let yaml = "providers:\n  apns: {kind: apns, payload_filter: [a]}\n"
        let configuration = try Fixture.load(yaml, environment: ["HERALD_PROVIDERS_APNS_PAYLOAD_FILTER": "b, c"]).configuration
        #expect(try configuration.providers["apns"]?.options.stringList("payload_filter") == ["b", "c"])
    }

    @Test func anUnknownVariableIsAWarningNotAnError() throws {
        let loaded = try Fixture.load(nil, environment: ["HERALD_FOO": "1", "HERALD_SERVER_HTTP_PROT": "1"])
        #expect(loaded.warnings == [
            "HERALD_FOO does not name a configuration key; ignored",
            "HERALD_SERVER_HTTP_PROT does not name a configuration key; ignored",
        ])
        #expect(loaded.configuration.server.http.port == 8080)
    }

    @Test func aVariableMatchingTwoKeysIsAWarning() throws {
        let yaml = "providers:\n  a-b: {kind: http}\n  a_b: {kind: http}\n"
        let loaded = try Fixture.load(yaml, environment: ["HERALD_PROVIDERS_A_B_CA_FILE": "x.pem"])
        #expect(loaded.warnings == ["HERALD_PROVIDERS_A_B_CA_FILE matches several configuration keys (providers.a-b.ca_file, providers.a_b.ca_file); ignored"])
        #expect(try loaded.configuration.providers["a-b"]?.options.string("ca_file") == nil)
    }

    @Test func aBadValueFromTheEnvironmentNamesTheKeyAndTheVariable() {
        let error = Fixture.failure(nil, environment: ["HERALD_SERVER_HTTP_PORT": "eighty"])
        #expect(error?.key == "server.http.port")
        #expect(error?.problem.hasSuffix("(set by HERALD_SERVER_HTTP_PORT)") == true)
        #expect(Fixture.failure(nil, environment: ["HERALD_EVENT_SOURCE_ENABLED": "sometimes"])?.key == "event_source.enabled")
    }

    @Test func anEmptyVariableRestoresTheDefault() throws {
        let configuration = try Fixture.load(
            "server:\n  http: {port: 8081}\n",
            environment: ["HERALD_SERVER_HTTP_PORT": "", "HERALD_SERVER_UDP_PORT": ""]
        ).configuration
        #expect(configuration.server.http.port == 8080)
        #expect(configuration.server.udp == nil)
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFile() throws {
        let yaml = "server: {http: {port: 8081}, database: file.db}\nlog: {level: error}\n"
        let environment = [
            "HERALD_SERVER_HTTP_PORT": "9000",
            "HERALD_SERVER_DATABASE": "env.db",
            "HERALD_LOG_LEVEL": "warning",
        ]
        let fromEnvironment = try Fixture.load(yaml, environment: environment).configuration
        #expect(fromEnvironment.server.http.port == 9000)
        #expect(fromEnvironment.server.database == "env.db")
        #expect(fromEnvironment.log.level == .warning)

        let overrides = ConfigurationOverrides(port: 9100, database: "postgres://db/herald", logLevel: "TRACE")
        let fromFlags = try Fixture.load(yaml, environment: environment, overrides: overrides).configuration
        #expect(fromFlags.server.http.port == 9100)
        #expect(fromFlags.server.database == "postgres://db/herald")
        #expect(fromFlags.log.level == .trace)
    }

    @Test func aValueOverriddenByAFlagIsNotChecked() throws {
        let configuration = try Fixture.load(nil, environment: ["HERALD_SERVER_HTTP_PORT": "nope"], overrides: .init(port: 80)).configuration
        #expect(configuration.server.http.port == 80)
    }

    @Test(arguments: [
        (ConfigurationOverrides(port: 0), "--port"),
        (ConfigurationOverrides(port: 70000), "--port"),
        (ConfigurationOverrides(database: "mysql://db/x"), "--database"),
        (ConfigurationOverrides(database: ""), "--database"),
        (ConfigurationOverrides(logLevel: "loud"), "--log-level"),
    ])
    func aBadFlagNamesTheFlag(_ overrides: ConfigurationOverrides, _ flag: String) {
        #expect(Fixture.failure(nil, overrides: overrides)?.key == flag)
    }
}
