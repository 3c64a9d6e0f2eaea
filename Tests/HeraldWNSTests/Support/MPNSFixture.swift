import HeraldCore
import HeraldSimulators
import HeraldWNS
import OrderedCollections

/// A running MPNS simulator over TLS with its CA on disk, and a way to build `mpns` providers pointed at it.
struct MPNSFixture {
    let directory: SimulatorDirectory
    let shelf = ProviderShelf()
    let simulator: MPNSSimulator

    /// Runs `body` with a started simulator, stopping it afterwards.
    static func with<T>(_ body: (MPNSFixture) async throws -> T) async throws -> T {
        let directory = try SimulatorDirectory()
        let simulator = MPNSSimulator(configuration: .init(certificateAuthority: directory.authority))
        try await simulator.start()
        let fixture = MPNSFixture(directory: directory, simulator: simulator)
        do {
            let result = try await body(fixture)
            await fixture.shelf.shutdownAll()
            await simulator.stop()
            directory.remove()
            return result
        } catch {
            await fixture.shelf.shutdownAll()
            await simulator.stop()
            directory.remove()
            throw error
        }
    }

    /// An `mpns` provider of `type` built by the kind, with `endpoint` set to the simulator.
    func provider(type: String = "toast", extra: OrderedDictionary<String, ConfigValue> = [:]) async throws -> any PushProvider {
        var values: OrderedDictionary<String, ConfigValue> = [
            "kind": .scalar("mpns"), "type": .scalar(type), "endpoint": .scalar(simulator.origin), "ca_file": .scalar(directory.caFile),
        ]
        // Generous: the whole suite runs in parallel on 2 cores, and each connection goes through the egress guard.
        values["timeout"] = .scalar("60")
        values.merge(extra) { $1 }
        let section = ConfigSection(path: "providers.mpns-\(type)", values: values)
        return shelf.keep(try await MPNSKind().makeProvider(name: "mpns-\(type)", options: section, environment: ProviderEnvironment()))
    }
}
