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

    /// Where a listener's messages go.
    enum Outlet: Sendable {
        /// A response body written by the router's task (``PushdRoutes/eventStream(_:_:)``).
        case stream(Stream.Continuation)
        /// A connection ``EventStreamTakeover`` serves on its event loop.
        case channel(EventStreamChannel)
    }

    private struct Listener {
        let events: [String]
        let outlet: Outlet
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
    public init(keepaliveInterval: Duration = .seconds(10), bufferLimit: Int = 1024, maxListeners: Int = 20_000, logger: Logger) {
        self.keepaliveInterval = keepaliveInterval
        self.bufferLimit = bufferLimit
        self.maxListeners = maxListeners
        self.logger = logger
    }

    /// Registers a listener for `events` whose messages a response body reads from a stream; the
    /// stream ends when the hub shuts down or the listener falls `bufferLimit` messages behind.
    ///
    /// - Returns: `nil` when the hub already has its maximum of listeners.
    func listen(to events: [String]) -> Stream? {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        switch add(events, .stream(continuation)) {
        case .added(let id):
            continuation.onTermination = { [weak self] _ in self?.remove(id) }
        case .closed:
            continuation.finish()
        case .full:
            return nil
        }
        return stream
    }

    /// Registers a listener for `events` that a connection of its own serves; it calls
    /// ``remove(_:)`` when the connection closes.
    ///
    /// - Returns: the listener's id; `nil` when the hub is full or shutting down.
    func attach(to events: [String], channel: EventStreamChannel) -> Int? {
        guard case .added(let id) = add(events, .channel(channel)) else { return nil }
        return id
    }

    /// Whether the hub has its maximum of listeners.
    var isFull: Bool { state.withLock { $0.listeners.count >= maxListeners } }

    /// The most messages a listener may fall behind before it is disconnected.
    var maxBuffered: Int { bufferLimit }

    private enum Addition {
        case added(Int)
        case full
        case closed
    }

    private func add(_ events: [String], _ outlet: Outlet) -> Addition {
        state.withLock { state in
            guard !state.closed else { return .closed }
            guard state.listeners.count < maxListeners else { return .full }
            let id = state.nextID
            state.nextID += 1
            state.listeners[id] = Listener(events: events, outlet: outlet)
            for event in events { state.byEvent[event, default: []].insert(id) }
            return .added(id)
        }
    }

    /// The number of open listeners.
    public var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// Sends a published event to its listeners: `data: <json>\n\n`.
    public func publish(_ notification: PublishedEvent) {
        let targets = state.withLock { state -> [(Int, Outlet)] in
            guard let ids = state.byEvent[notification.event] else { return [] }
            return ids.compactMap { id in state.listeners[id].map { (id, $0.outlet) } }
        }
        guard !targets.isEmpty else { return }
        let line = ByteBuffer(string: "data: \(notification.eventJSON(includeText: true))\n\n")
        for (id, outlet) in targets {
            deliver(line, to: outlet, id: id)
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
            let all = state.withLock { state in state.listeners.map { ($0.key, $0.value.outlet) } }
            for (id, outlet) in all { deliver(Self.keepalive, to: outlet, id: id) }
        }
        let all = state.withLock { state -> [Outlet] in
            state.closed = true
            return state.listeners.values.map(\.outlet)
        }
        for outlet in all {
            switch outlet {
            case .stream(let continuation): continuation.finish()
            case .channel(let channel): channel.finish()
            }
        }
    }

    private func deliver(_ buffer: ByteBuffer, to outlet: Outlet, id: Int) {
        switch outlet {
        case .stream(let continuation):
            if case .dropped = continuation.yield(buffer) {
                logSlowListener(id)
                continuation.finish()
            }
        case .channel(let channel):
            channel.send(buffer)
        }
    }

    /// Notes that listener `id` fell ``maxBuffered`` messages behind and is being disconnected.
    func logSlowListener(_ id: Int) {
        logger.notice("disconnecting a slow event-stream listener", metadata: ["listener": "\(id)"])
    }

    /// Forgets listener `id`: its response ended or its connection closed.
    func remove(_ id: Int) {
        state.withLock { state in
            guard let listener = state.listeners.removeValue(forKey: id) else { return }
            for event in listener.events {
                state.byEvent[event]?.remove(id)
                if state.byEvent[event]?.isEmpty == true { state.byEvent[event] = nil }
            }
        }
    }
}
