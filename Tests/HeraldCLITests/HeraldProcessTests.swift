import Foundation
import HeraldTestSupport
import Testing

/// The test harness's own promises about the `herald` child processes other tests rely on.
struct HeraldProcessTests {
    /// A child told to use a port another `herald` already holds fails to start, instead of
    /// passing for ready on the other's answers (a CI run once counted one node's metrics twice).
    @Test func aChildOnATakenPortIsNotMistakenForItsHolder() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let holder = try await HeraldProcess.start([], port: port, directory: directory)
        let other = TestHerald.makeTemporaryDirectory()
        await #expect(throws: ProcessExited.self) {
            _ = try await HeraldProcess.start([], port: port, directory: other)
        }
        #expect(try await holder.status() == 204)
        holder.signal(SIGKILL)
        _ = await holder.waitForExit()
    }

    /// No two calls in one test process hand out the same port. Drawn at random from about
    /// 22,000, 1,000 ports would all differ by chance with a probability of about e^-22.
    @Test func freePortsAreNeverHandedOutTwice() throws {
        let ports = try (0..<1_000).map { _ in try HeraldProcess.freePort() }
        #expect(Set(ports).count == ports.count)
    }
}
