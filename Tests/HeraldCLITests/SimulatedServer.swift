import Foundation
import HeraldTestSupport

/// `herald simulate` with the configuration it writes, and `herald serve` started on it: the
/// newcomer's path the simulate tests follow.
struct SimulatedServer {
    /// The working directory; the simulators' files are under `sim/`.
    let directory: String
    /// The `herald simulate` process.
    let simulate: HeraldProcess
    /// The `herald serve` process.
    let herald: HeraldProcess
    /// The server's base URL.
    let base: String

    /// Starts `herald simulate <arguments> --config-out … --directory …` and, once the
    /// configuration is written, `herald serve` on it.
    static func start(_ arguments: [String]) async throws -> SimulatedServer {
        let directory = TestHerald.makeTemporaryDirectory()
        let config = directory + "/simulated.yml"
        let simulate = try HeraldProcess.spawn(
            ["simulate"] + arguments + ["--config-out", config, "--directory", directory + "/sim"], directory: directory)
        do {
            try await eventually(limit: .seconds(60)) {
                (try? String(contentsOfFile: config, encoding: .utf8))?.contains("kind: http") == true
            }
            let port = try HeraldProcess.freePort()
            let herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
            return SimulatedServer(directory: directory, simulate: simulate, herald: herald, base: "http://127.0.0.1:\(port)")
        } catch {
            simulate.signal(SIGTERM)
            throw error
        }
    }

    /// Stops both with SIGTERM; `true` when both exited 0.
    func stop() async -> Bool {
        herald.signal(SIGTERM)
        let heraldStatus = await herald.waitForExit()
        simulate.signal(SIGTERM)
        let simulateStatus = await simulate.waitForExit()
        return heraldStatus == 0 && simulateStatus == 0
    }
}
