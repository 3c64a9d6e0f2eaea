import Foundation
import HeraldCore
import HeraldGCMLegacy
import HeraldSimulators
import OrderedCollections
import HeraldTestFixtures

/// A running legacy GCM simulator over TLS with its CA on disk, and a way to build `gcm-legacy` providers for it.
struct GCMLegacyFixture {
    static let apiKey = "AIzaSyTestServerKey0123456789"

    let directory: String
    let authority: SimulatorCertificateAuthority
    let simulator: GCMLegacySimulator

    /// Runs `body` with a started simulator, stopping it afterwards.
    static func with<T>(_ body: (GCMLegacyFixture) async throws -> T) async throws -> T {
        let directory = TemporaryDirectory.make()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        let simulator = GCMLegacySimulator(configuration: .init(apiKeys: [apiKey], certificateAuthority: authority))
        try await simulator.start()
        let fixture = GCMLegacyFixture(directory: directory, authority: authority, simulator: simulator)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let result = try await body(fixture)
            await simulator.stop()
            return result
        } catch {
            await simulator.stop()
            throw error
        }
    }

    /// A `gcm-legacy` provider built by the kind, trusting the simulator CA through `ca_file`.
    func provider(apiKey: String = apiKey, extra: OrderedDictionary<String, String> = [:]) async throws -> any PushProvider {
        var values: OrderedDictionary<String, String> = [
            "kind": "gcm-legacy", "endpoint": simulator.endpoint, "api_key": apiKey, "ca_file": authority.caCertificateFile!,
        ]
        values.merge(extra) { $1 }
        let section = ConfigSection(path: "providers.gcm-old", values: values.mapValues { .scalar($0) })
        return try await GCMLegacyKind().makeProvider(name: "gcm-old", options: section, environment: ProviderEnvironment())
    }
}

/// Renders `event` once for (`lang`, `silent`) and sends it to every token concurrently, as the pipeline does.
func deliver<Provider: PushProvider>(
    _ provider: Provider, _ event: PublishedEvent, to tokens: [String], lang: String? = nil, silent: Bool = false
) async -> [DeliveryOutcome?] {
    let variant = provider.variant(lang: lang, silent: silent, badge: nil, version: nil)
    switch provider.render(event, for: variant) {
    case .skip:
        return tokens.map { _ in nil }
    case .fail(let outcome):
        return tokens.map { _ in outcome }
    case .send(let message):
        return await withTaskGroup(of: (Int, DeliveryOutcome).self) { group in
            for (index, token) in tokens.enumerated() {
                group.addTask { (index, await provider.send(message, to: DeliveryTarget(subscriberID: .random(), token: token))) }
            }
            var outcomes = [DeliveryOutcome?](repeating: nil, count: tokens.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }
}

extension PublishedEvent {
    /// A publish to `sport` with an English default and a French title and message.
    static func sample(data: OrderedDictionary<String, String> = ["score": "2-1"]) -> PublishedEvent {
        PublishedEvent(
            event: "sport", title: LocalizedText(["default": "Goal", "fr": "But"]),
            message: LocalizedText(["default": "Team A scores", "fr": "L'équipe A marque"]), data: data)
    }
}
