import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import Testing

/// `herald serve` raises its soft open-file limit to the hard one at start-up (docs/operations.md).
@Suite struct FileDescriptorLimitTests {
    /// The soft and hard "Max open files" of process `pid`, from `/proc/<pid>/limits`.
    static func openFileLimits(of pid: Int32) throws -> (soft: String, hard: String)? {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else { return nil }
        let fields = line.dropFirst("Max open files".count).split(separator: " ")
        guard fields.count >= 2 else { return nil }
        return (String(fields[0]), String(fields[1]))
    }

    @Test func softLimitIsRaisedToTheHardLimit() async throws {
        let hard = try #require(try Self.openFileLimits(of: getpid())?.hard)
        // The shell lowers the soft limit and then becomes herald (exec), so the pid is herald's.
        try #require(hard == "unlimited" || (Int(hard) ?? 0) > 256, "the hard limit must leave room to raise from 256")
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -Sn 256 && exec \"$0\" serve --port \(port) --database sqlite:herald.db", HeraldProcess.executable]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        try await eventually(limit: .seconds(60)) {
            let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/status"), timeout: .seconds(5))
            return response?.status.code == 204
        }

        let limits = try #require(try Self.openFileLimits(of: process.processIdentifier))
        #expect(limits.soft == hard, "soft \(limits.soft), hard \(limits.hard)")
        #expect(limits.hard == hard)
    }
}
