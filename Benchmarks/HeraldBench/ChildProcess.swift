import Foundation

/// A child process whose resource use is read from /proc.
struct ChildProcess {
    let process: Process

    static func start(_ executable: String, _ arguments: [String], log: String) throws -> ChildProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
        return ChildProcess(process: process)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        Self.waitForExit(process)
    }

    /// Waits for `process` to exit. Foundation's own reaping can miss a child's exit when the
    /// waiting happens on a concurrency thread, so wait on the pid directly (ECHILD: already reaped).
    static func waitForExit(_ process: Process) {
        var status: Int32 = 0
        while waitpid(process.processIdentifier, &status, 0) == -1 && errno == EINTR {}
    }

    /// User + system CPU seconds so far.
    func cpuSeconds() -> Double {
        Self.cpuSeconds(of: process.processIdentifier)
    }

    /// This process's user + system CPU seconds so far, to the microsecond (`/proc` counts in
    /// clock ticks), for clients measured in the driver's own process.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// User + system CPU seconds of process `pid` so far (0 if it is gone).
    static func cpuSeconds(of pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime 14, stime 15 (1-based in proc(5)).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The peak resident set size (VmHWM) in MiB.
    func peakRSSMiB() -> Double? {
        Self.statusField("VmHWM:", of: process.processIdentifier).map { $0 / 1024 }
    }

    /// The current resident set size (VmRSS) in MiB.
    func rssMiB() -> Double? {
        Self.statusField("VmRSS:", of: process.processIdentifier).map { $0 / 1024 }
    }

    /// A kilobyte field of `/proc/<pid>/status` (`VmRSS:`, `VmHWM:`, `RssAnon:` ...).
    static func statusField(_ name: String, of pid: pid_t) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }
        return nil
    }
}

/// A short description of this machine.
enum Machine {
    static func describe() -> String {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let memory = ProcessInfo.processInfo.physicalMemory / 1_073_741_824
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) GiB"
    }
}

extension Duration {
    /// The duration in seconds, as the benchmarks' rates and tables use it.
    var inSeconds: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
