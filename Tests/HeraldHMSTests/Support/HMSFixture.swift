import Foundation
import HeraldCore
import HeraldHMS
import HeraldSimulators
import HeraldTestFixtures
import Logging
import OrderedCollections
import Testing

/// A running HMS simulator over TLS with a generated CA, and `hms` providers built through the public kind and
/// pointed at it.
struct HMSFixture {
    static let clientID = "104567890"
    static let clientSecret = "2f6c0e8d4b1a9c7e5d3f1a2b4c6d8e0f"

    let directory: String
    let authority: SimulatorCertificateAuthority
    let simulator: HMSSimulator
    let shelf = ProviderShelf()

    /// Runs `body` with a started simulator (`configure` adjusts its configuration first), then shuts down every
    /// provider it built and stops the simulator, whatever `body` did.
    static func with<T>(
        configure: (inout HMSSimulator.Configuration) -> Void = { _ in },
        _ body: (HMSFixture) async throws -> T
    ) async throws -> T {
        let directory = TemporaryDirectory.make()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        var configuration = HMSSimulator.Configuration(clientID: clientID, clientSecret: clientSecret, certificateAuthority: authority)
        configuration.recordPayloads = true
        configure(&configuration)
        let simulator = HMSSimulator(configuration: configuration)
        try await simulator.start()
        let fixture = HMSFixture(directory: directory, authority: authority, simulator: simulator)
        do {
            let result = try await body(fixture)
            await fixture.stop()
            return result
        } catch {
            await fixture.stop()
            throw error
        }
    }

    private func stop() async {
        await shelf.shutdownAll()
        await simulator.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The options of an `hms` provider pointed at the simulator, with `extra` added or replaced.
    func options(_ extra: OrderedDictionary<String, String> = [:]) -> ConfigSection {
        var values: OrderedDictionary<String, String> = [
            "client_id": Self.clientID, "client_secret": Self.clientSecret, "endpoint": simulator.endpoint,
            "token_endpoint": simulator.tokenEndpoint, "ca_file": authority.caCertificateFile!,
        ]
        values.merge(extra) { $1 }
        return ConfigSection(path: "providers.huawei", values: values.mapValues { ConfigValue.scalar($0) })
    }

    /// A provider built by `HMSKind` from ``options(_:)``, reading the time from `clock`; shut down with the fixture.
    func provider(_ extra: OrderedDictionary<String, String> = [:], clock: WallClock = .system) async throws -> HMSProvider {
        let provider = shelf.keep(
            try await HMSKind().makeProvider(
                name: "huawei", options: options(extra), environment: ProviderEnvironment(logger: Logger(label: "test.hms"), clock: clock)))
        return try #require(provider as? HMSProvider)
    }

    /// A push token of the shape Push Kit issues (well over the simulator's minimum length).
    static func token(_ number: Int) -> String {
        "IQAAAACy0kYkAACgNdJ3zHm-hms-token-\(String(format: "%06d", number))-Rv3m2Sx8bE"
    }

    /// A target for `token`.
    static func target(_ token: String) -> DeliveryTarget {
        DeliveryTarget(subscriberID: SubscriberID(rawValue: "subscriber-\(token.suffix(17))"), token: token)
    }

    /// Renders `event` for `variant` and requires a message.
    static func message(_ provider: HMSProvider, _ event: PublishedEvent, _ variant: MessageVariant = MessageVariant()) throws -> HMSMessage {
        guard case .send(let message) = provider.render(event, for: variant) else {
            throw FixtureError.notRendered
        }
        return message
    }

    enum FixtureError: Error { case notRendered }
}

/// Sends `deliveries` through the provider's batch send, as the pipeline does, and returns each one's outcome in order.
func sendBatch(_ provider: HMSProvider, _ deliveries: [(message: HMSMessage, target: DeliveryTarget)]) async -> [DeliveryOutcome?] {
    let outcomes = OutcomeCollector(count: deliveries.count)
    await provider.send(deliveries) { index, outcome in outcomes.set(index, outcome) }
    return outcomes.values
}

/// Sends `message` to every token of `tokens` in one batch send.
func sendBatch(_ provider: HMSProvider, _ message: HMSMessage, to tokens: [String]) async -> [DeliveryOutcome?] {
    await sendBatch(provider, tokens.map { (message: message, target: HMSFixture.target($0)) })
}
