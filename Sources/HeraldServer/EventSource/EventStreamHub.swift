import HeraldCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The Server-Sent Events listeners of this node (§12), and their keepalive.
///
/// Each listener gets a bounded buffer; one that falls that far behind is disconnected
/// rather than buffered without bound.
public final class EventStreamHub: Service, Sendable, CustomStringConvertible {
    public var description: String { "EventStreamHub" }

    /// What a listener's stream carries.
    public typealias Stream = AsyncStream<ByteBuffer>

    private struct Listener {
        let events: [String]
        let continuation: Stream.Continuation
    }

    private struct State {
        var nextID = 0
        var listeners: [Int: Listener] = [:]
        var byEvent: [String: Set<Int>] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let keepaliveInterval: Duration
    private let bufferLimit: Int
    private let maxListeners: Int
    private let logger: Logger
    private static let keepalive = ByteBuffer(string: "\n")

    /// Creates a hub that writes a keepalive every `keepaliveInterval`, keeps at most
    /// `bufferLimit` unsent messages per listener and at most `maxListeners` listeners.
    public init(keepaliveInterval: Duration = .seconds(10), bufferLimit: Int = 1024, maxListeners: Int = 10_000, logger: Logger) {
        self.keepaliveInterval = keepaliveInterval
        self.bufferLimit = bufferLimit
        self.maxListeners = maxListeners
        self.logger = logger
    }

    /// Registers a listener for `events`; the stream ends when the hub shuts down or the listener is removed.
    ///
    /// - Returns: `nil` when the hub already has its maximum of listeners.
    public func listen(to events: [String]) -> (id: Int, stream: Stream)? {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        var full = false
        let id = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            guard state.listeners.count < maxListeners else {
                full = true
                return nil
            }
            let id = state.nextID
            state.nextID += 1
            state.listeners[id] = Listener(events: events, continuation: continuation)
            for event in events { state.byEvent[event, default: []].insert(id) }
            return id
        }
        guard let id else {
            continuation.finish()
            return full ? nil : (-1, stream)
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return (id, stream)
    }

    /// The number of open listeners.
    public var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// Sends a published event to its listeners: `data: <json>\n\n`.
    public func publish(_ notification: PublishedEvent) {
        let targets = state.withLock { state -> [(Int, Stream.Continuation)] in
            guard let ids = state.byEvent[notification.event] else { return [] }
            return ids.compactMap { id in state.listeners[id].map { (id, $0.continuation) } }
        }
        guard !targets.isEmpty else { return }
        let line = ByteBuffer(string: "data: \(notification.eventJSON(includeText: true))\n\n")
        for (id, continuation) in targets {
            deliver(line, to: continuation, id: id)
        }
    }

    public func run() async throws {
        // The keepalive also reveals dead connections: a failed write ends the response.
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: self.keepaliveInterval) }
            } catch {
                break
            }
            let all = state.withLock { state in state.listeners.map { ($0.key, $0.value.continuation) } }
            for (id, continuation) in all { deliver(Self.keepalive, to: continuation, id: id) }
        }
        let all = state.withLock { state -> [Stream.Continuation] in
            state.closed = true
            return state.listeners.values.map(\.continuation)
        }
        for continuation in all { continuation.finish() }
    }

    private func deliver(_ buffer: ByteBuffer, to continuation: Stream.Continuation, id: Int) {
        if case .dropped = continuation.yield(buffer) {
            logger.notice("disconnecting a slow event-stream listener", metadata: ["listener": "\(id)"])
            continuation.finish()
        }
    }

    private func remove(_ id: Int) {
        state.withLock { state in
            guard let listener = state.listeners.removeValue(forKey: id) else { return }
            for event in listener.events {
                state.byEvent[event]?.remove(id)
                if state.byEvent[event]?.isEmpty == true { state.byEvent[event] = nil }
            }
        }
    }
}
