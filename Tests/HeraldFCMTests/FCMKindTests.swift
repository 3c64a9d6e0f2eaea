import Foundation
import HeraldCore
import HeraldFCM
import Logging
import Testing
import HeraldTestFixtures

/// The kind's options: where the service account comes from, endpoints, limits, and the errors that name the key.
@Suite struct FCMKindTests {
    private let directory = TemporaryDirectory.make()

    private func make(_ values: [(String, String)]) async throws -> any PushProvider {
        let section = ConfigSection(
            path: "providers.gcm", values: .init(uniqueKeysWithValues: values.map { ($0.0, ConfigValue.scalar($0.1)) }))
        return try await FCMKind().makeProvider(name: "gcm", options: section, environment: ProviderEnvironment(logger: Logger(label: "test")))
    }

    private func configurationError(_ values: [(String, String)]) async -> ConfigurationError? {
        do {
            let provider = try await make(values)
            await provider.shutdown()
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    private var inlineAccount: String { FCMFixture.account.json(tokenURI: "https://127.0.0.1:1/token") }

    @Test func declaresItsOptions() {
        let kind = FCMKind()
        #expect(kind.name == "fcm")
        #expect(kind.optionKeys == [
            "service_account_file", "service_account", "endpoint", "token_endpoint", "max_connections", "max_streams_per_connection", "max_concurrent", "request_timeout",
            "http2_engine",
        ])
    }

    @Test func anInlineServiceAccountBuildsAProvider() async throws {
        let provider = try await make([("service_account", inlineAccount), ("max_concurrent", "64")])
        #expect(provider.name == "gcm")
        #expect(provider.kind == "fcm")
        #expect(provider.maxConcurrentDeliveries == 64)
        #expect(provider.countsBadges == false)
        await provider.shutdown()
    }

    @Test func anInlineMappingIsTheSameAsTheJSONText() async throws {
        let account = FCMFixture.account
        let fields: [(String, ConfigValue)] = [
            ("type", .scalar("service_account")), ("project_id", .scalar(account.projectID)),
            ("private_key_id", .scalar(account.privateKeyID)), ("private_key", .scalar(account.privateKeyPEM)),
            ("client_email", .scalar(account.clientEmail)), ("token_uri", .scalar("https://127.0.0.1:1/token")),
        ]
        let section = ConfigSection(
            path: "providers.gcm", values: ["service_account": .map(.init(uniqueKeysWithValues: fields))])
        let provider = try await FCMKind().makeProvider(name: "gcm", options: section, environment: ProviderEnvironment())
        #expect(provider.kind == "fcm")
        await provider.shutdown()

        let nested = ConfigSection(
            path: "providers.gcm", values: ["service_account": .map(["project_id": .list([.scalar("p")])])])
        let error = await #expect(throws: ConfigurationError.self) {
            try await FCMKind().makeProvider(name: "gcm", options: nested, environment: ProviderEnvironment())
        }
        #expect(error?.key == "providers.gcm.service_account.project_id")
    }

    @Test(arguments: ["nio", "nghttp2", "NGHTTP2"])
    func theHTTP2EngineIsAnOption(engine: String) async throws {
        let provider = try await make([("service_account", inlineAccount), ("http2_engine", engine)])
        await provider.shutdown()
    }

    @Test func anUnknownHTTP2EngineIsRefusedWithTheChoices() async {
        let error = await configurationError([("service_account", inlineAccount), ("http2_engine", "h2o")])
        #expect(error?.key == "providers.gcm.http2_engine")
        #expect(error?.problem == #"expected nio or nghttp2, got "h2o""#)
    }

    @Test func aServiceAccountIsRequired() async {
        let error = await configurationError([])
        #expect(error?.key == "providers.gcm")
        #expect(error?.problem.contains("service_account_file") == true)
    }

    @Test func bothFormsAtOnceAreRefused() async {
        let error = await configurationError([("service_account", inlineAccount), ("service_account_file", "/nonexistent.json")])
        #expect(error?.key == "providers.gcm")
    }

    @Test func anUnreadableFileNamesTheKey() async {
        let error = await configurationError([("service_account_file", "/nonexistent/sa.json")])
        #expect(error?.key == "providers.gcm.service_account_file")
        #expect(error?.problem.contains("/nonexistent/sa.json") == true)
    }

    @Test func aBadServiceAccountFileNamesTheKeyAndNotTheSecret() async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/sa.json"
        let truncated = FCMFixture.account.json(tokenURI: "https://x/token").replacingOccurrences(of: "\"client_email\"", with: "\"email\"")
        try truncated.write(toFile: file, atomically: true, encoding: .utf8)
        let error = await configurationError([("service_account_file", file)])
        #expect(error?.key == "providers.gcm.service_account_file")
        #expect(error?.problem == "has no \"client_email\"")
        #expect(error?.description.contains("PRIVATE KEY") == false)
    }

    @Test(arguments: [
        ("endpoint", "http://fcm.example"), ("endpoint", "not a url"), ("endpoint", "https://fcm.example/v1"),
        ("token_endpoint", "ftp://x/token"), ("max_connections", "0"), ("max_streams_per_connection", "0"), ("max_concurrent", "x"),
        ("request_timeout", "-1"), ("http2_engine", "quic"),
        ("ca_file", "/nonexistent/ca.pem"),
    ])
    func badOptionsNameTheirKey(key: String, value: String) async {
        let error = await configurationError([("service_account", inlineAccount), (key, value)])
        #expect(error?.key == "providers.gcm.\(key)")
    }

    @Test(arguments: [
        ("dXp3YTN4:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx", true), ("any-non-empty_value.even~odd", true),
        ("", false), ("has space", false), ("tab\there", false), ("line\nbreak", false), ("nul\u{0}", false),
        (String(repeating: "a", count: 4096), true), (String(repeating: "a", count: 4097), false),
    ])
    func registrationTokensAreValidated(token: String, valid: Bool) async throws {
        let provider = try await make([("service_account", inlineAccount)])
        let normalized = provider.normalizeToken(TokenInput(token: .string(token)))
        await provider.shutdown()
        #expect((normalized != nil) == valid)
        if valid {
            #expect(normalized == NormalizedToken(token: token))
        }
    }
}
