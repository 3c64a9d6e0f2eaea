import DequeModule
import HeraldCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The Server-Sent Events listeners of this node (§12), their keepalive, and the recent events
/// a listener that reconnects is sent again.
///
/// Each listener gets a bounded buffer; one that falls that far behind is disconnected
/// rather than buffered without bound (and, reconnecting with `Last-Event-ID`, gets the rest).
///
/// Every event carries an SSE `id:` (this hub's random epoch and a sequence number). The events of
/// the last `replayWindow` (at most ``maxReplayEvents``) are kept, so a listener that reconnects
/// with `Last-Event-ID` is sent those it missed, in order, before anything live, and none twice:
/// registering it and reading the log happen under the lock that publishing takes. An id of
/// another epoch (another node, or before a restart) replays nothing.
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

    /// A published event kept for replay.
    private struct Logged {
        let sequence: UInt64
        let at: ContinuousClock.Instant
        let notification: PublishedEvent
        /// The message as it was sent, when the event had listeners; one nobody heard is rendered
        /// only if it is replayed, which most never are.
        let message: ByteBuffer?

        var event: String { notification.event }
    }

    private struct State {
        var nextID = 0
        var listeners: [Int: Listener] = [:]
        var byEvent: [String: Set<Int>] = [:]
        var closed = false
        var nextSequence: UInt64 = 1
        /// The recent events, oldest first (a deque: each publish drops the oldest once it is full).
        var log = Deque<Logged>()
    }

    /// The most events kept for replay, whatever the window: a bound on memory.
    static let maxReplayEvents = 10_000

    private let state = Mutex(State())
    private let keepaliveInterval: Duration
    private let bufferLimit: Int
    private let maxListeners: Int
    private let logger: Logger
    private let replayWindow: Duration
    /// What this hub's event ids start with: random, so that an id from another node or from
    /// before a restart is not taken for one of ours.
    let epoch: String
    private static let keepalive = ByteBuffer(string: "\n")

    /// Creates a hub that writes a keepalive every `keepaliveInterval`, keeps at most
    /// `bufferLimit` unsent messages per listener and at most `maxListeners` listeners, and the
    /// events of the last `replayWindow` for listeners that reconnect (`.zero`: none).
    public init(
        keepaliveInterval: Duration = .seconds(10), bufferLimit: Int = 1024, maxListeners: Int = 20_000, replayWindow: Duration = .seconds(600),
        logger: Logger
    ) {
        self.keepaliveInterval = keepaliveInterval
        self.bufferLimit = bufferLimit
        self.maxListeners = maxListeners
        self.replayWindow = replayWindow
        self.logger = logger
        self.epoch = String(SubscriberID.random().rawValue.filter { $0.isLetter || $0.isNumber }.prefix(8))
    }

    /// Registers a listener for `events` whose messages a response body reads from a stream; the
    /// stream ends when the hub shuts down or the listener falls `bufferLimit` messages behind.
    ///
    /// - Returns: `nil` when the hub already has its maximum of listeners.
    func listen(to events: [String], lastEventID: String? = nil) -> Stream? {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        switch add(events, .stream(continuation), lastEventID: lastEventID) {
        case .added(let id):
            continuation.onTermination = { [weak self] _ in self?.remove(id) }
        case .overflowed(let id):
            // More missed events than the buffer holds: what fits is sent, then the stream ends,
            // and the client reconnects from the last id it got.
            continuation.onTermination = { [weak self] _ in self?.remove(id) }
            logSlowListener(id)
            continuation.finish()
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
    func attach(to events: [String], channel: EventStreamChannel, lastEventID: String? = nil) -> Int? {
        switch add(events, .channel(channel), lastEventID: lastEventID) {
        case .added(let id), .overflowed(let id): return id
        case .full, .closed: return nil
        }
    }

    /// Whether the hub has its maximum of listeners.
    var isFull: Bool { state.withLock { $0.listeners.count >= maxListeners } }

    /// The most messages a listener may fall behind before it is disconnected.
    var maxBuffered: Int { bufferLimit }

    private enum Addition {
        case added(Int)
        /// Added, but the missed events overflowed its stream's buffer: the caller ends it.
        case overflowed(Int)
        case full
        case closed
    }

    private func add(_ events: [String], _ outlet: Outlet, lastEventID: String?) -> Addition {
        let after = lastEventID.flatMap(sequence(of:))
        let now = ContinuousClock.now
        return state.withLock { state in
            guard !state.closed else { return .closed }
            guard state.listeners.count < maxListeners else { return .full }
            let id = state.nextID
            state.nextID += 1
            state.listeners[id] = Listener(events: events, outlet: outlet)
            for event in events { state.byEvent[event, default: []].insert(id) }
            if let after {
                // Under the lock: an event published from here on is sent live, none twice. Nothing
                // here may end a stream (its termination handler takes this lock): an overflow is
                // reported, and the caller ends it.
                let wanted = Set(events)
                for logged in state.log where logged.sequence > after && wanted.contains(logged.event) && now - logged.at <= replayWindow {
                    let message = logged.message ?? message(logged.sequence, json: logged.notification.eventJSON(includeText: true))
                    switch outlet {
                    case .stream(let continuation):
                        if case .dropped = continuation.yield(message) { return .overflowed(id) }
                    case .channel(let channel):
                        channel.send(message)
                    }
                }
            }
            return .added(id)
        }
    }

    /// The sequence number of one of this hub's event ids (`<epoch>-<sequence>`); `nil` for another's.
    private func sequence(of eventID: String) -> UInt64? {
        let parts = eventID.trimmingWhitespace().split(separator: "-", maxSplits: 1)
        guard parts.count == 2, parts[0] == epoch else { return nil }
        return UInt64(parts[1])
    }

    /// The number of open listeners.
    public var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// Sends a published event to its listeners, `id: <epoch>-<n>` and `data: <json>`, and keeps it
    /// for the replay window.
    public func publish(_ notification: PublishedEvent) {
        let replaying = replayWindow > .zero
        // Rendered outside the lock when the event has listeners now; one that gains its first
        // listener meanwhile is rendered under it.
        let json = hasListeners(notification.event) ? notification.eventJSON(includeText: true) : nil
        let now = ContinuousClock.now
        let (line, targets) = state.withLock { state -> (ByteBuffer?, [(Int, Outlet)]) in
            let ids = state.byEvent[notification.event]
            guard replaying || ids != nil else { return (nil, []) }
            let sequence = state.nextSequence
            state.nextSequence += 1
            let line = ids.map { _ in message(sequence, json: json ?? notification.eventJSON(includeText: true)) }
            if replaying {
                while let oldest = state.log.first, now - oldest.at > replayWindow || state.log.count >= Self.maxReplayEvents {
                    state.log.removeFirst()
                }
                state.log.append(Logged(sequence: sequence, at: now, notification: notification, message: line))
            }
            return (line, (ids ?? []).compactMap { id in state.listeners[id].map { (id, $0.outlet) } })
        }
        guard let line else { return }
        for (id, outlet) in targets {
            deliver(line, to: outlet, id: id)
        }
    }

    /// Whether anyone listens to `event` now.
    private func hasListeners(_ event: String) -> Bool {
        state.withLock { $0.byEvent[event] != nil }
    }

    /// The message of the event numbered `sequence`, whose JSON is `json`.
    private func message(_ sequence: UInt64, json: String) -> ByteBuffer {
        ByteBuffer(string: "id: \(epoch)-\(sequence)\ndata: \(json)\n\n")
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
