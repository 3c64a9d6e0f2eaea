import Crypto
import Foundation
import HeraldAPNs
import HeraldCore
import Logging
import Testing
import HeraldTestFixtures

/// The kind's connection options: accepted in range, refused naming their key.
@Suite struct APNsKindTests {
    private func make(_ extra: [(String, String)]) async throws -> any PushProvider {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyFile = directory + "/AuthKey_KEY1234567.p8"
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let values = [("topic", "com.example.app"), ("team_id", "TEAM123456"), ("key_id", "KEY1234567"), ("key_file", keyFile)] + extra
        let section = ConfigSection(
            path: "providers.apns", values: .init(uniqueKeysWithValues: values.map { ($0.0, ConfigValue.scalar($0.1)) }))
        return try await APNsKind().makeProvider(name: "apns", options: section, environment: ProviderEnvironment(logger: Logger(label: "test")))
    }

    @Test func connectionLimitsAreOptions() async throws {
        #expect(APNsKind().optionKeys.isSuperset(of: ["max_connections", "max_streams_per_connection", "max_concurrent"]))
        let provider = try await make([("max_connections", "8"), ("max_streams_per_connection", "250"), ("max_concurrent", "64")])
        #expect(provider.maxConcurrentDeliveries == 64)
        await provider.shutdown()
    }

    @Test(arguments: ["nio", "nghttp2"])
    func theHTTP2EngineIsAnOption(engine: String) async throws {
        #expect(APNsKind().optionKeys.contains("http2_engine"))
        let provider = try await make([("http2_engine", engine)])
        await provider.shutdown()
    }

    @Test(arguments: [
        ("max_connections", "0"), ("max_streams_per_connection", "0"), ("max_streams_per_connection", "x"), ("http2_engine", "quic"),
    ])
    func outOfRangeLimitsNameTheirKey(key: String, value: String) async {
        do {
            let provider = try await make([(key, value)])
            await provider.shutdown()
            Issue.record("\(key): \(value) was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "providers.apns.\(key)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
