import ArgumentParser
import Foundation
import HeraldHTTP2
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// swift-nio-http2 and NIOSSL with no Herald code but a write coalescer: Herald's APNs requests
/// (unique path and `apns-id`, the other fields as h2load sends them) prepared before the clock
/// starts, and a handler that only keeps every connection's streams full. What it reaches is the
/// floor that the HTTP/2 stack Herald is built on sets for any client on this machine.
struct NIOHTTP2Floor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nio-http2-floor",
        abstract: "swift-nio-http2 alone, sending Herald's APNs requests to the h2o sink, beside h2load.")

    @Option(help: "Requests to send.")
    var requests = 100_000

    @Option(help: "HTTP/2 connections, spread over two event loops as Herald's are.")
    var connections = 8

    @Option(help: "Runs, each between two h2load runs whose mean it is compared with; the ratio's median is reported.")
    var runs = 3

    @Option(help: "Requests h2load sends to the sink.")
    var h2loadRequests = 200_000

    @Option(help: "Working directory (certificates, sink configuration).")
    var directory = "/tmp/herald-bench-nio-http2-floor"

    func run() async throws {
        let (credentials, sink) = try H2OSink.startForAPNsClients(directory: directory)
        defer { sink.stop() }
        let caFile = credentials.authority.caCertificateFile!

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(caFile)
        tls.applicationProtocols = ["h2"]
        let sslContext = try NIOSSLContext(configuration: tls)
        // One thread per core, as Herald's loops.
        let group = MultiThreadedEventLoopGroup.singleton

        let results = try await sink.bracketedRuns(
            runs, subject: "nio-http2", requests: requests, h2loadRequests: h2loadRequests,
            h2load: { try H2Load.run(.apns, port: sink.port, requests: h2loadRequests, caFile: caFile) }
        ) { run in
            let label = runs > 1 ? "nio-http2 alone → h2o sink (run \(run))" : "nio-http2 alone → h2o sink"
            return try await measure(label: label, port: sink.port, sslContext: sslContext, group: group)
        }
        Result.sayClientTable(results, requestsPerRun: requests, unit: "request")
    }

    private func measure(label: String, port: Int, sslContext: NIOSSLContext, group: MultiThreadedEventLoopGroup) async throws -> Result {
        let work = FloorWork(
            requests: Self.requestHeaders(count: requests, port: port), body: H2Load.Shape.apns.body, done: group.next().makePromise())
        let cpuBefore = ChildProcess.ownCPUSeconds()
        let started = ContinuousClock.now
        var channels: [any Channel] = []
        for _ in 0..<connections {
            channels.append(try await ClientBootstrap(group: group)
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: nil))
                        try pipeline.addHandler(HTTP2WriteCoalescingHandler())
                        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
                        configuration.headerBlockValidation = .disabled
                        configuration.contentLengthValidation = .disabled
                        try pipeline.addHandler(NIOHTTP2Handler(mode: .client, connectionConfiguration: configuration))
                        try pipeline.addHandler(FloorStreamDriver(work: work))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get())
        }
        try await work.done.futureResult.get()
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.inSeconds
        let cpu = ChildProcess.ownCPUSeconds() - cpuBefore
        for channel in channels { try? await channel.close() }
        guard work.okAnswers == requests else { throw BenchError("\(label): \(work.okAnswers) of \(requests) answered 200") }
        return Result(label: label, rate: Double(requests) / seconds, seconds: seconds, cpuCores: cpu / seconds)
    }

    /// Every request's header block, in the order and with the indexing Herald uses: a unique path
    /// and `apns-id` each, the other fields as h2load sends them.
    private static func requestHeaders(count: Int, port: Int) -> [HPACKHeaders] {
        var shared = HPACKHeaders()
        for line in H2Load.Shape.apns.headers where !line.hasPrefix("apns-id:") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            shared.add(name: parts[0], value: parts[1])
        }
        return (0..<count).map { index in
            var headers = HPACKHeaders()
            headers.reserveCapacity(5 + shared.count)
            headers.add(name: ":method", value: "POST")
            headers.add(name: ":scheme", value: "https")
            headers.add(name: ":authority", value: "127.0.0.1:\(port)")
            let hex = String(index, radix: 16)
            headers.add(name: ":path", value: "/3/device/" + String(repeating: "a", count: 64 - hex.count) + hex, indexing: .nonIndexable)
            headers.add(contentsOf: shared)
            // Herald indexes the first `apns-id` of each connection; here the first 64 requests,
            // which the connections take first, are indexed, and the rest are not.
            let id = "123e4567-e89b-42d3-a456-" + String(repeating: "0", count: 12 - hex.count) + hex
            headers.add(name: "apns-id", value: id, indexing: index < 64 ? .indexable : .nonIndexable)
            return headers
        }
    }
}

/// The requests of one run, taken in turn by every connection, and the count of answers.
private final class FloorWork: Sendable {
    let requests: [HPACKHeaders]
    let body: ByteBuffer
    /// Succeeds when every request is answered.
    let done: EventLoopPromise<Void>
    private let next = Atomic<Int>(0)
    private let answers = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)

    init(requests: [HPACKHeaders], body: String, done: EventLoopPromise<Void>) {
        self.requests = requests
        self.body = ByteBuffer(string: body)
        self.done = done
    }

    /// The next request's index, or `nil` when every request was taken.
    func take() -> Int? {
        let index = self.next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < self.requests.count ? index : nil
    }

    /// Counts a response that was not 200.
    func failed() {
        self.failures.wrappingAdd(1, ordering: .relaxed)
    }

    /// Counts an answer; the last one completes ``done``.
    func answered() {
        if self.answers.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == self.requests.count {
            self.done.succeed()
        }
    }

    /// How many answers were 200.
    var okAnswers: Int {
        self.answers.load(ordering: .acquiring) - self.failures.load(ordering: .acquiring)
    }
}

/// Keeps one connection's streams full: on the server's SETTINGS and after every read, opens
/// streams up to its limit, each a HEADERS and a DATA frame, flushed together.
private final class FloorStreamDriver: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let work: FloorWork
    private var limit = 0
    private var open = 0
    private var nextStreamID: Int32 = 1

    init(work: FloorWork) {
        self.work = work
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                self.limit = setting.value
            }
            if self.limit == 0 { self.limit = 100 }
        case .headers(let headers):
            if let status = headers.headers.first(name: ":status"), status != "200" { self.work.failed() }
            if headers.endStream { self.finished() }
        case .data(let data):
            if data.endStream { self.finished() }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        var wrote = false
        while self.open < self.limit, let index = self.work.take() {
            let streamID = HTTP2StreamID(self.nextStreamID)
            self.nextStreamID += 2
            self.open += 1
            context.write(self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: self.work.requests[index])))), promise: nil)
            context.write(self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(self.work.body), endStream: true)))), promise: nil)
            wrote = true
        }
        if wrote { context.flush() }
        context.fireChannelReadComplete()
    }

    private func finished() {
        self.open -= 1
        self.work.answered()
    }
}
