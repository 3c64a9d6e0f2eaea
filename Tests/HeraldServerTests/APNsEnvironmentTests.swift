import Foundation
import HeraldAPNs
import HeraldCore
import HeraldHTTP2
import HeraldSimulators
import HeraldTestSupport
import HeraldWebhook
import Logging
import Testing

/// A prepared payload's `herald-apns-environment` picks the APNs host (gorush's `production`/`development`):
/// the provider's own environment through its pool, the other through the second pool, never as a header.
@Suite struct APNsEnvironmentTests {
    @Test func eachNotificationGoesToTheEnvironmentItAsksFor() async throws {
        let bed = try await APNsTestBed.start()
        // The "sandbox host": the same credentials and CA at another port.
        var sandboxConfiguration = bed.configuration
        sandboxConfiguration.port = 0
        let sandbox = APNsSimulator(configuration: sandboxConfiguration)
        let sandboxPort = try await sandbox.start()
        let logger = Logger(label: "test.apns", factory: { _ in SwiftLogNoOpLogHandler() })
        let provider = try await makeProvider(bed: bed, productionPort: bed.configuration.port, sandboxPort: sandboxPort, logger: logger)
        let token = APNsTestBed.token(7)
        let target = DeliveryTarget(subscriberID: nil, token: token)
        for (environment, body) in [("sandbox", #"{"aps":{"alert":"to sandbox"}}"#), ("production", #"{"aps":{"alert":"to production"}}"#), (nil, #"{"aps":{"alert":"default"}}"#)] {
            var headers: [String: String] = [:]
            if let environment { headers[PreparedPayload.apnsEnvironmentHeader] = environment }
            guard case .send(let message) = provider.render(PreparedPayload(body: body, headers: headers)) else {
                Issue.record("not rendered")
                continue
            }
            #expect(await provider.send(message, to: target).outcome == .delivered)
        }
        #expect(sandbox.accepted().map(\.body) == [#"{"aps":{"alert":"to sandbox"}}"#])
        #expect(bed.simulator.accepted().map(\.body) == [#"{"aps":{"alert":"to production"}}"#, #"{"aps":{"alert":"default"}}"#])
        let names = (sandbox.accepted() + bed.simulator.accepted()).flatMap { $0.headers.map(\.name) }
        #expect(!names.contains { $0.hasPrefix("herald-") })
        await provider.shutdown()
        await sandbox.stop()
        await bed.simulator.stop()
    }

    /// The provider as the `apns` kind builds it without `endpoint` (production, with a second pool for sandbox),
    /// but with both pools pointed at the simulators.
    private func makeProvider(bed: APNsTestBed, productionPort: Int, sandboxPort: Int, logger: Logger) async throws -> APNsProvider {
        let option = { (name: String) in
            bed.providerYAML.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + ":") }
                .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) }
        }
        let caFile = try #require(option("ca_file"))
        let keyFile = try #require(option("key_file"))
        var tls = try OutboundTLS.clientConfiguration(extraRootFiles: [caFile])
        tls.applicationProtocols = ["h2"]
        let token = try await APNsProviderToken(
            keyPEM: try String(contentsOfFile: keyFile, encoding: .utf8), keyID: "KEY1234567", teamID: "TEAM123456")
        var settings = APNsProvider.Settings(topic: bed.topic, authority: "127.0.0.1")
        settings.environment = .production
        return APNsProvider(
            name: "apns", settings: settings, renderer: APNsPayloadRenderer(),
            pool: HTTP2ConnectionPool(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: productionPort, tls: tls), logger: logger),
            otherEnvironmentPool: HTTP2ConnectionPool(
                configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: sandboxPort, tls: tls), logger: logger),
            token: token, logger: logger)
    }
}
