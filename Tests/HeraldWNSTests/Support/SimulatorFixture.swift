import Foundation
import HeraldCore
import HeraldSimulators
import OrderedCollections
import HeraldTestFixtures

/// A temporary directory with a simulator CA, removed afterwards.
struct SimulatorDirectory {
    let path: String
    let authority: SimulatorCertificateAuthority

    init() throws {
        path = TemporaryDirectory.make()
        authority = try SimulatorCertificateAuthority(directory: path)
    }

    /// The CA certificate file, for a provider's `ca_file`.
    var caFile: String { authority.caCertificateFile! }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Provider options as a configuration section `providers.<name>`.
func options(_ name: String, _ values: OrderedDictionary<String, String>) -> ConfigSection {
    ConfigSection(path: "providers.\(name)", values: values.mapValues { ConfigValue.scalar($0) })
}

/// Renders `event` once for the variant of (`lang`, `silent`, `badge`, `version`) and sends it to every token
/// concurrently, as the pipeline does; `nil` outcomes mean the rendering skipped the variant.
func deliver<Provider: PushProvider>(
    _ provider: Provider, _ event: PublishedEvent, to tokens: [String],
    lang: String? = nil, silent: Bool = false, badge: Int? = nil, version: String? = nil
) async -> [DeliveryOutcome?] {
    let variant = provider.variant(lang: lang, silent: silent, badge: badge, version: version)
    switch provider.render(event, for: variant) {
    case .skip:
        return tokens.map { _ in nil }
    case .fail(let outcome):
        return tokens.map { _ in outcome }
    case .send(let message):
        return await withTaskGroup(of: (Int, DeliveryOutcome).self) { group in
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    (index, await provider.send(message, to: DeliveryTarget(subscriberID: .random(), token: token)))
                }
            }
            var outcomes = [DeliveryOutcome?](repeating: nil, count: tokens.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }
}

/// Sends `event` to one token.
func deliver<Provider: PushProvider>(
    _ provider: Provider, _ event: PublishedEvent, to token: String,
    lang: String? = nil, silent: Bool = false, badge: Int? = nil, version: String? = nil
) async -> DeliveryOutcome? {
    await deliver(provider, event, to: [token], lang: lang, silent: silent, badge: badge, version: version)[0]
}
