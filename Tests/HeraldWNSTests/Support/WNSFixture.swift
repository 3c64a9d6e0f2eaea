import HeraldCore
import HeraldSimulators
import HeraldWNS
import OrderedCollections

/// A running WNS simulator over TLS with its CA on disk, and a way to build `wns` providers pointed at it.
struct WNSFixture {
    static let clientID = "ms-app://s-1-15-2-1234567890"
    static let clientSecret = "Vex8L9WOFZuj95euaLrvSH7XyoDhLJc7"

    let directory: SimulatorDirectory
    let shelf = ProviderShelf()
    let simulator: WNSSimulator

    /// Runs `body` with a started simulator, stopping it afterwards.
    static func with<T>(
        configure: (inout WNSSimulator.Configuration) -> Void = { _ in },
        _ body: (WNSFixture) async throws -> T
    ) async throws -> T {
        let directory = try SimulatorDirectory()
        var configuration = WNSSimulator.Configuration(
            clientID: clientID, clientSecret: clientSecret, certificateAuthority: directory.authority)
        configure(&configuration)
        let simulator = WNSSimulator(configuration: configuration)
        try await simulator.start()
        let fixture = WNSFixture(directory: directory, simulator: simulator)
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

    /// A `wns` provider of `type` built by the kind, trusting the simulator CA through `ca_file`.
    func provider(type: String = "toast", secret: String = clientSecret, extra: OrderedDictionary<String, String> = [:]) async throws
        -> any PushProvider
    {
        var values: OrderedDictionary<String, String> = [
            "kind": "wns", "type": type, "client_id": Self.clientID, "client_secret": secret,
            "token_endpoint": simulator.tokenEndpoint, "ca_file": directory.caFile,
        ]
        values.merge(extra) { $1 }
        return shelf.keep(try await WNSKind().makeProvider(name: "wns-\(type)", options: options("wns-\(type)", values), environment: ProviderEnvironment()))
    }
}
