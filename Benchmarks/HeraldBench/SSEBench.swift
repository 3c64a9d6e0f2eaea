import ArgumentParser
import Foundation
import HeraldTestSupport
import NIOCore
import NIOPosix
import Synchronization

/// `herald-bench sse`: the memory each Server-Sent Events listener costs Herald and the time one
/// event takes to reach all of them (issue 20).
///
/// Opens N raw `GET /subscribe` connections from one NIO event loop (no HTTP client per
/// listener, so the driver stays small), reads Herald's RSS before and after, publishes one
/// event and times until every listener has seen its `data:` line.
struct SSEBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sse",
        abstract: "Open N Server-Sent Events listeners on Herald: RSS per listener and the delivery time of one event to all.")

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Working directory (database, configuration, logs).")
    var directory = "/tmp/herald-sse-bench"

    @Option(help: "Listeners to open.")
    var listeners = 19_000

    @Option(help: "Connections opened at once.")
    var concurrency = 500

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        say("machine: \(Machine.describe())")
        let config = directory + "/herald.yml"
        try "log:\n  level: warning\nevent_source:\n  max_listeners: \(listeners + 100)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let port = try HeraldProcess.freePort()
        let base = "http://127.0.0.1:\(port)"
        let child = try ChildProcess.start(
            herald, ["serve", "--config", config, "--port", "\(port)", "--database", "sqlite:\(directory)/herald.db"], log: directory + "/herald.log")
        defer { child.stop() }
        let client = BenchClient()
        try await client.waitUntil { (try? await client.get(base + "/status").status) == 204 }
        try await Task.sleep(for: .seconds(2))
        let idle = child.rssMiB() ?? 0
        say("herald ready (pid \(child.process.processIdentifier)); idle RSS \(String(format: "%.1f", idle)) MiB")

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let counters = SSECounters()
        var channels: [any Channel] = []
        channels.reserveCapacity(listeners)
        let request = ByteBuffer(string: "GET /subscribe?events=bench HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        let openStart = ContinuousClock.now
        var opened = 0
        while opened < listeners {
            let batch = min(concurrency, listeners - opened)
            let futures = (0..<batch).map { _ in
                ClientBootstrap(group: group)
                    .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(SSEListenerHandler(counters: counters)) } }
                    .connect(host: "127.0.0.1", port: port)
                    .flatMap { channel in channel.writeAndFlush(request).map { channel } }
            }
            for future in futures { channels.append(try await future.get()) }
            opened += batch
        }
        // Every listener is registered once Herald has sent its first line to it.
        try await client.waitUntil { counters.connected() >= listeners }
        let openSeconds = (ContinuousClock.now - openStart).inSeconds
        try await Task.sleep(for: .seconds(3))
        let loaded = child.rssMiB() ?? 0
        let perListener = (loaded - idle) * 1024 * 1024 / Double(listeners)
        say("\(listeners) listeners open in \(String(format: "%.1f", openSeconds)) s; RSS \(String(format: "%.1f", loaded)) MiB")

        let published = ContinuousClock.now
        let answer = try await client.post(base + "/event/bench", form: "msg=hello")
        guard answer == 204 else { throw BenchError("publish answered \(answer)") }
        var deadline = false
        while counters.received() < listeners {
            if ContinuousClock.now - published > .seconds(30) {
                deadline = true
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let delivery = (ContinuousClock.now - published).inSeconds
        say("")
        say("| listeners | idle RSS | RSS with listeners | bytes per listener | event received by | time to all |")
        say("|---:|---:|---:|---:|---:|---:|")
        say("| \(listeners) | \(String(format: "%.1f", idle)) MiB | \(String(format: "%.1f", loaded)) MiB | \(Int(perListener)) | \(counters.received()) | \(deadline ? "> 30 s" : String(format: "%.3f s", delivery)) |")
        for channel in channels { channel.close(promise: nil) }
        try await group.shutdownGracefully()
    }
}

/// How many listeners have been answered and how many have seen the event.
final class SSECounters: Sendable {
    private let counts = Mutex<(connected: Int, received: Int)>((0, 0))

    func markConnected() { counts.withLock { $0.connected += 1 } }
    func markReceived() { counts.withLock { $0.received += 1 } }
    func connected() -> Int { counts.withLock { $0.connected } }
    func received() -> Int { counts.withLock { $0.received } }
}

/// One listener's connection: counts its first bytes (the response head) and its first `data:` line.
final class SSEListenerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let counters: SSECounters
    private var connected = false
    private var received = false

    init(counters: SSECounters) {
        self.counters = counters
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if !connected {
            connected = true
            counters.markConnected()
        }
        if !received, buffer.readableBytesView.firstRange(of: Array("data:".utf8)) != nil {
            received = true
            counters.markReceived()
        }
    }
}
