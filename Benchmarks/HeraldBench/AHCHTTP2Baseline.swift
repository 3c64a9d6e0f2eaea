import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// AsyncHTTPClient's HTTP/2 alone: the same APNs requests as `nio-http2-floor` sends (a unique path
/// and `apns-id` each, the other fields and the body as h2load sends them), made through
/// `HTTPClient.execute` over TLS to the h2o sink, beside h2load in the same run. It is the
/// alternative to Herald's own HTTP/2 pool (`HeraldHTTP2`) that a provider would otherwise use, so
/// it keeps the choice of that pool measured.
///
/// AHC negotiates HTTP/2 by ALPN and multiplexes requests on its own pool, which opens one HTTP/2
/// connection per client for requests with no event-loop requirement and queues the rest until
/// streams free up; its connection count cannot be configured. `--clients K` spreads the requests
/// over K clients (K pools, so at least K connections), to compare at Herald's connection count.
struct AHCHTTP2Baseline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ahc-http2",
        abstract: "AsyncHTTPClient's HTTP/2 alone, sending Herald's APNs requests to the h2o sink, beside h2load.")

    @Option(help: "Requests to send.")
    var requests = 100_000

    @Option(help: "Requests in flight at once (Herald has 8 connections × 100 streams on the wire).")
    var concurrency = 800

    @Option(help: "HTTPClient instances the requests are spread over in turn (each has its own pool).")
    var clients = 1

    @Option(help: "Runs, each between two h2load runs whose mean it is compared with; the ratio's median is reported.")
    var runs = 3

    @Option(help: "Requests h2load sends to the sink.")
    var h2loadRequests = 200_000

    @Option(help: "Working directory (certificates, sink configuration).")
    var directory = "/tmp/herald-bench-ahc-http2"

    func run() async throws {
        let (credentials, sink) = try H2OSink.startForAPNsClients(directory: directory)
        defer { sink.stop() }
        let caFile = credentials.authority.caCertificateFile!

        let results = try await sink.bracketedRuns(
            runs, subject: "AHC", requests: requests, h2loadRequests: h2loadRequests,
            h2load: { try H2Load.run(.apns, port: sink.port, requests: h2loadRequests, caFile: caFile) }
        ) { run in
            let label = runs > 1 ? "AsyncHTTPClient HTTP/2 → h2o sink (run \(run))" : "AsyncHTTPClient HTTP/2 → h2o sink"
            return try await measure(label: label, port: sink.port, caFile: caFile)
        }
        Result.sayClientTable(results, requestsPerRun: requests, unit: "request")
    }

    private func measure(label: String, port: Int, caFile: String) async throws -> Result {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(caFile)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic  // HTTP/2 when ALPN says h2, as h2o does
        configuration.decompression = .disabled
        // Fresh clients per run: new connections, as a freshly started provider has. One thread
        // per core, as Herald's loops.
        let httpClients = (0..<max(1, clients)).map { _ in
            HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        }
        do {
            let result = try await measure(label: label, port: port, clients: httpClients)
            for client in httpClients { try? await client.shutdown() }
            return result
        } catch {
            for client in httpClients { try? await client.shutdown() }
            throw error
        }
    }

    private func measure(label: String, port: Int, clients httpClients: [HTTPClient]) async throws -> Result {
        let prepared = Self.requests(count: requests, port: port)
        let work = AHCWork(count: requests)
        let cpuBefore = ChildProcess.ownCPUSeconds()
        let started = ContinuousClock.now
        // The connections AHC opened, sampled while the run lasts (it closes none before its idle
        // timeout), less those of earlier runs' clients still closing.
        let earlier = Self.establishedConnections(toPort: port)
        let sampler = Task {
            var most = 0
            while !Task.isCancelled {
                most = max(most, Self.establishedConnections(toPort: port))
                try? await Task.sleep(for: .milliseconds(200))
            }
            return most
        }
        await withDiscardingTaskGroup { group in
            for _ in 0..<min(concurrency, requests) {
                group.addTask {
                    while let index = work.take() {
                        let client = httpClients[index % httpClients.count]
                        do {
                            let response = try await client.execute(prepared[index], timeout: .seconds(60))
                            _ = try await response.body.collect(upTo: 1 << 16)
                            if response.version.major != 2 { work.notHTTP2() }
                            if response.status == .ok { work.answered() } else { work.failed() }
                        } catch {
                            work.failed()
                        }
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.inSeconds
        let cpu = ChildProcess.ownCPUSeconds() - cpuBefore
        sampler.cancel()
        let connections = await sampler.value - earlier
        say("\(label): at most \(connections) TCP connections to the sink; \(work.nonHTTP2Answers) answers not over HTTP/2")
        guard work.okAnswers == requests else { throw BenchError("\(label): \(work.okAnswers) of \(requests) answered 200") }
        return Result(label: label, rate: Double(requests) / seconds, seconds: seconds, cpuCores: cpu / seconds)
    }

    /// Every request, built before the clock starts: a unique path and `apns-id` each, the other
    /// fields and the body as h2load's.
    private static func requests(count: Int, port: Int) -> [HTTPClientRequest] {
        var shared = HTTPHeaders()
        for line in H2Load.Shape.apns.headers where !line.hasPrefix("apns-id:") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            shared.add(name: parts[0], value: parts[1])
        }
        let body = ByteBuffer(string: H2Load.Shape.apns.body)
        let base = "https://127.0.0.1:\(port)/3/device/"
        return (0..<count).map { index in
            let hex = String(index, radix: 16)
            var request = HTTPClientRequest(url: base + String(repeating: "a", count: 64 - hex.count) + hex)
            request.method = .POST
            request.headers = shared
            request.headers.add(name: "apns-id", value: "123e4567-e89b-42d3-a456-" + String(repeating: "0", count: 12 - hex.count) + hex)
            request.body = .bytes(body)
            return request
        }
    }

    /// This process's established TCP connections whose remote port is `port`: the rows of
    /// /proc/net/tcp whose socket inode is one of this process's descriptors.
    static func establishedConnections(toPort port: Int) -> Int {
        var inodes: Set<Substring> = []
        for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            // "socket:[12345]"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(Substring(target.dropFirst(8).dropLast()))
        }
        // Read to the end: the kernel hands /proc/net/tcp out a page at a time.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return 0 }
        defer { try? file.close() }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        let remote = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().filter { line in
            // sl, local address, remote address, state, queues, timer, retransmits, uid, timeout, inode
            let fields = line.split(separator: " ")
            return fields.count > 9 && fields[2].hasSuffix(remote) && fields[3] == "01" && inodes.contains(fields[9])
        }.count
    }
}

/// The requests of one run, taken in turn by the workers, and the count of answers.
private final class AHCWork: Sendable {
    let count: Int
    private let next = Atomic<Int>(0)
    private let answers = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let nonHTTP2 = Atomic<Int>(0)

    init(count: Int) {
        self.count = count
    }

    /// The next request's index, or `nil` when every request was taken.
    func take() -> Int? {
        let index = self.next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < self.count ? index : nil
    }

    func answered() {
        self.answers.wrappingAdd(1, ordering: .relaxed)
    }

    func failed() {
        self.failures.wrappingAdd(1, ordering: .relaxed)
    }

    /// Counts an answer that came over another HTTP version than 2.
    func notHTTP2() {
        self.nonHTTP2.wrappingAdd(1, ordering: .relaxed)
    }

    /// How many answers were 200.
    var okAnswers: Int {
        self.answers.load(ordering: .acquiring)
    }

    /// How many answers came over another HTTP version than 2.
    var nonHTTP2Answers: Int {
        self.nonHTTP2.load(ordering: .acquiring)
    }
}
