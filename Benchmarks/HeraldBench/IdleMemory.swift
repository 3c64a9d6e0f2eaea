import ArgumentParser
import Foundation
import HeraldTestSupport

/// `herald-bench idle`: the resident memory of an idle `herald serve` (SQLite, the default
/// configuration: the `http` webhook provider and Server-Sent Events on), split into what the
/// process allocated (anonymous: heap, stacks, relocated data) and what is mapped from files (the
/// code and read-only data of the executable and of the shared libraries, clean and shared between
/// processes), with its threads.
///
/// Each run starts Herald once to create its database, stops it, starts it again on that
/// database, waits for `GET /status`, lets it settle and reads `/proc/<pid>/smaps`. With several
/// `--herald` binaries the runs alternate between them.
struct IdleMemory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "The idle RSS of herald serve (SQLite, webhooks, SSE), anonymous and file-backed, by mapping, with its threads.")

    @Option(help: "A herald binary to measure (a release build); repeat it to compare builds, run by run.")
    var herald: [String] = [".build/release/herald"]

    @Option(help: "Runs of each binary.")
    var runs = 3

    @Option(help: "Seconds between the first answered /status and the reading.")
    var settle = 5.0

    @Option(help: "Working directory (database, logs).")
    var directory = "/tmp/herald-idle-bench"

    func run() async throws {
        say("machine: \(Machine.describe())")
        var rows: [String] = []
        for run in 1...max(1, runs) {
            for binary in herald {
                let reading = try await measure(binary)
                say("\(binary) run \(run): \(reading.summary)")
                rows.append(reading.row(binary: binary, run: run))
            }
        }
        say("")
        say("| binary | run | VmRSS | anonymous | file-backed | of which the executable | Swift runtime and Foundation | other libraries | threads |")
        say("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for row in rows { say(row) }
    }

    private func measure(_ binary: String) async throws -> IdleReading {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let arguments = { (port: Int) in
            ["serve", "--port", "\(port)", "--database", "sqlite:\(directory)/herald.db", "--log-level", "warning"]
        }
        let client = BenchClient()
        // First start: creates and migrates the database.
        let firstPort = try HeraldProcess.freePort()
        let first = try ChildProcess.start(binary, arguments(firstPort), log: directory + "/herald-first.log")
        try await client.waitUntil { (try? await client.get("http://127.0.0.1:\(firstPort)/status").status) == 204 }
        first.stop()

        let port = try HeraldProcess.freePort()
        let child = try ChildProcess.start(binary, arguments(port), log: directory + "/herald.log")
        defer { child.stop() }
        try await client.waitUntil { (try? await client.get("http://127.0.0.1:\(port)/status").status) == 204 }
        try await Task.sleep(for: .seconds(settle))
        return try IdleReading(pid: child.process.processIdentifier, executable: URL(fileURLWithPath: binary).lastPathComponent)
    }
}

/// One reading of `/proc/<pid>/smaps` and `/proc/<pid>/status`, in KiB.
struct IdleReading {
    var rss = 0
    var anonymous = 0
    /// File-backed pages of the executable itself.
    var executableFile = 0
    /// File-backed pages of `libswift*`, `libFoundation*`, `lib_FoundationICU` and `libdispatch`.
    var swiftFile = 0
    /// File-backed pages of every other mapped file (libc, libsqlite3, ...).
    var otherFile = 0
    var threads = 0

    init(pid: pid_t, executable: String) throws {
        let smaps = try String(decoding: FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/smaps")).readToEnd() ?? Data(), as: UTF8.self)
        var path = ""
        var mappingRSS = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-") && !first.hasSuffix(":") {
                // A mapping's header: address range, permissions, offset, device, inode, [path].
                path = fields.count > 5 ? String(fields[5]) : ""
            } else if first == "Rss:", fields.count > 1 {
                mappingRSS = Int(fields[1]) ?? 0
                rss += mappingRSS
            } else if first == "Anonymous:", fields.count > 1 {
                let anonymous = Int(fields[1]) ?? 0
                self.anonymous += anonymous
                let file = mappingRSS - anonymous
                guard path.hasPrefix("/"), file > 0 else { continue }
                let name = path.split(separator: "/").last.map(String.init) ?? path
                if name == executable {
                    executableFile += file
                } else if name.hasPrefix("libswift") || name.hasPrefix("libFoundation") || name.hasPrefix("lib_Foundation")
                    || name.hasPrefix("libdispatch") || name.hasPrefix("libBlocksRuntime")
                {
                    swiftFile += file
                } else {
                    otherFile += file
                }
            }
        }
        threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    private static func mib(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }

    var summary: String {
        "RSS \(Self.mib(rss)): anonymous \(Self.mib(anonymous)), file-backed \(Self.mib(rss - anonymous)) (executable \(Self.mib(executableFile)), Swift and Foundation \(Self.mib(swiftFile)), other libraries \(Self.mib(otherFile))); \(threads) threads"
    }

    func row(binary: String, run: Int) -> String {
        "| \(binary) | \(run) | \(Self.mib(rss)) | \(Self.mib(anonymous)) | \(Self.mib(rss - anonymous)) | \(Self.mib(executableFile)) | \(Self.mib(swiftFile)) | \(Self.mib(otherFile)) | \(threads) |"
    }
}
