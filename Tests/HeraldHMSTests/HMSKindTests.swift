import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldHMS
import HeraldTestFixtures
import Logging
import Testing

/// The kind's options: the app's credentials, endpoints, limits, and the errors that name the key.
@Suite struct HMSKindTests {
    private func section(_ values: [(String, String)]) -> ConfigSection {
        ConfigSection(path: "providers.huawei", values: .init(uniqueKeysWithValues: values.map { ($0.0, ConfigValue.scalar($0.1)) }))
    }

    private func make(_ values: [(String, String)]) async throws -> any PushProvider {
        try await HMSKind().makeProvider(name: "huawei", options: section(values), environment: ProviderEnvironment(logger: Logger(label: "test")))
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

    private let credentials = [("client_id", "104567890"), ("client_secret", "secret")]

    @Test func declaresItsOptions() {
        let kind = HMSKind()
        #expect(kind.name == "hms")
        #expect(kind.optionKeys == [
            "client_id", "client_secret", "client_secret_file", "endpoint", "token_endpoint", "badge_class", "batch_size",
            "max_concurrent", "max_connections", "request_timeout",
        ])
    }

    @Test func theCredentialsBuildAProvider() async throws {
        let provider = try await make(credentials + [("max_concurrent", "64")])
        #expect(provider.name == "huawei")
        #expect(provider.kind == "hms")
        #expect(provider.maxConcurrentDeliveries == 64)
        #expect(provider.countsBadges == false, "no badge_class: no badge is sent, so none is counted")
        await provider.shutdown()

        let badged = try await make(credentials + [("badge_class", "com.example.app.MainActivity")])
        #expect(badged.countsBadges)
        #expect(badged.maxConcurrentDeliveries == 2000)
        await badged.shutdown()
    }

    @Test func theSecretMayComeFromAFile() async throws {
        let directory = TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/hms-secret.txt"
        try "from-a-file\n".write(toFile: file, atomically: true, encoding: .utf8)
        let provider = try await make([("client_id", "104567890"), ("client_secret_file", file)])
        #expect(provider.kind == "hms")
        await provider.shutdown()
    }

    @Test func theAppIDAndASecretAreRequired() async {
        #expect(await configurationError([("client_secret", "s")])?.key == "providers.huawei.client_id")
        #expect(await configurationError([("client_id", "104567890")])?.key == "providers.huawei.client_secret")
        let both = await configurationError(credentials + [("client_secret_file", "/nonexistent")])
        #expect(both?.key == "providers.huawei")
    }

    @Test(arguments: [
        ("client_id", "10/4567890"), ("client_id", "app id"),
        ("endpoint", "http://push-api.cloud.huawei.com"), ("endpoint", "https://push-api.cloud.huawei.com/v1"), ("endpoint", "not a url"),
        ("token_endpoint", "http://oauth-login.cloud.huawei.com/oauth2/v3/token"), ("badge_class", " "),
        ("batch_size", "0"), ("batch_size", "1001"), ("max_concurrent", "x"), ("max_connections", "0"), ("request_timeout", "-1"),
        ("ca_file", "/nonexistent/ca.pem"),
    ])
    func badOptionsNameTheirKey(key: String, value: String) async {
        var values = credentials.filter { $0.0 != key }
        values.append((key, value))
        let error = await configurationError(values)
        #expect(error?.key == "providers.huawei.\(key)")
    }

    @Test func theSecretIsOverriddenFromTheEnvironmentLikeEveryOption() throws {
        let directory = TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/herald.yml"
        try "providers:\n  huawei: {kind: hms, client_id: \"104567890\", client_secret: from-the-file}\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try ConfigurationLoader(kinds: ProviderKindRegistry([HMSKind()])).load(
            file: file, environment: ["HERALD_PROVIDERS_HUAWEI_CLIENT_SECRET": "from-the-environment"],
            overrides: ConfigurationOverrides())
        let options = try #require(loaded.configuration.providers["huawei"]?.options)
        #expect(try options.string("client_secret") == "from-the-environment")
    }

    @Test func validationReadsNoFile() throws {
        try HMSKind().validate(options: section([("client_id", "104567890"), ("client_secret_file", "/nonexistent/secret")]))
        #expect(throws: ConfigurationError.self) {
            try HMSKind().validate(options: section([("client_secret", "s"), ("endpoint", "http://x")]))
        }
        #expect(throws: ConfigurationError.self) {
            try HMSKind().validate(options: section([("client_id", "104567890")]))
        }
    }

    @Test(arguments: [
        ("IQAAAACy0kYkAACgNdJ3zHm_token-value", true), ("any-non-empty_value.even~odd", true),
        ("", false), ("has space", false), ("tab\there", false), ("line\nbreak", false), ("nul\u{0}", false),
        (String(repeating: "a", count: 4096), true), (String(repeating: "a", count: 4097), false),
    ])
    func pushTokensAreValidated(token: String, valid: Bool) async throws {
        let provider = try await make(credentials)
        let normalized = provider.normalizeToken(TokenInput(token: .string(token)))
        await provider.shutdown()
        #expect((normalized != nil) == valid)
        if valid {
            #expect(normalized == NormalizedToken(token: token))
        }
    }
}
