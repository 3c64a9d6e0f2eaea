import Foundation
import HeraldPipeline
import HeraldStore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The dashboards' stream: once a `interval`, while any dashboard listens, it samples the gauges,
/// reads the registry's text back into a ``MetricsSnapshot`` and hands the same `data:` line to every
/// listener. One sample per tick however many dashboards are open, and at shutdown every stream
/// ends, so an open dashboard does not hold up the HTTP server's graceful shutdown (it runs as a
/// service that stops before the server, like ``EventStreamHub``).
public final class DashboardFeed: Service, Sendable, CustomStringConvertible {
    public var description: String { "DashboardFeed" }

    /// What one listener's stream carries: `data: <json>\n\n` chunks.
    public typealias Stream = AsyncStream<ByteBuffer>

    /// Time between two snapshots.
    public static let defaultInterval: Duration = .seconds(1)
    /// Most dashboards listening at once (each costs a buffer of a few snapshots, nothing more).
    public static let maxListeners = 100

    private struct State {
        var nextID = 0
        var listeners: [Int: Stream.Continuation] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let sampler: GaugeSampler
    private let interval: Duration
    private let logger: Logger

    /// Creates the feed of the registry in `metrics`, with the sampled gauges of `store`, `hub` and `providers`.
    public init(
        store: any PublishQueue & RetryQueue & StoreRuntime, metrics: ServerMetrics, hub: EventStreamHub?, providers: ProviderSet,
        interval: Duration = DashboardFeed.defaultInterval, logger: Logger
    ) {
        self.sampler = GaugeSampler(store: store, metrics: metrics, hub: hub, providers: providers)
        self.interval = interval
        self.logger = logger
    }

    /// Adds a listener; its stream ends when it is dropped or the feed shuts down.
    ///
    /// - Returns: `nil` when ``maxListeners`` already listen.
    func listen() -> Stream? {
        // A dashboard that stops reading loses old snapshots, not memory: only the newest few are kept.
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(4))
        let id = state.withLock { state -> Int? in
            guard !state.closed, state.listeners.count < Self.maxListeners else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.listeners[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return state.withLock { $0.closed } ? stream : nil
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully {
            let listeners = state.withLock { Array($0.listeners.values) }
            if !listeners.isEmpty {
                let line = ByteBuffer(string: "data: \(await snapshot())\n\n")
                for listener in listeners { listener.yield(line) }
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            } catch {
                break
            }
        }
        let listeners = state.withLock { state -> [Stream.Continuation] in
            state.closed = true
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }

    /// The registry now, as JSON.
    func snapshot() async -> String {
        do {
            try await sampler.sample()
        } catch {
            // The store cannot answer: its gauges keep their last values, the counters still move.
            logger.debug("cannot sample the store's gauges for the dashboard", metadata: ["error": "\(error)"])
        }
        let text = String(decoding: sampler.metrics.registry.emitToBuffer(), as: UTF8.self)
        return MetricsSnapshot(prometheusText: text).json(timeMillis: sampler.store.clock.nowMillis())
    }
}
