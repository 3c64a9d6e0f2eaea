import NIOCore

/// The decisions of an ``HTTP2ConnectionPool``: which connection takes a request, when to queue,
/// when to open, drain or close connections, and when waiting requests expire.
///
/// A pure value type: no channels, no clocks (time comes in as arguments), no locks. The pool holds
/// it in a lock, feeds it events and performs the returned actions outside the lock.
///
/// Invariant: while requests are queued, no ready connection has a free stream. Every event that
/// frees capacity or adds a waiter dispatches from the queue, so a waiter never sits next to an
/// idle stream.
struct HTTP2PoolStateMachine<Waiter: Identifiable> {
    /// The limits the state machine enforces.
    struct Configuration: Sendable {
        var maxConnections: Int
        var maxConcurrentStreamsPerConnection: Int
        var maxQueuedRequests: Int
        var backoff: HTTP2ReconnectBackoff
        /// Consecutive connect failures, with no connection ready, after which requests stop
        /// waiting (0: never).
        var failWaitersAfterConnectFailures = 0
        /// The shortest spacing between queue sweeps, so that many distinct deadlines cannot turn
        /// the queue timer into a busy loop.
        var queueSweepInterval: TimeAmount = .milliseconds(10)
    }

    /// One connection as the pool accounts for it.
    struct Connection: Hashable, Sendable {
        /// The connection's phase.
        enum State: Hashable, Sendable {
            /// Opening; not yet usable.
            case connecting
            /// Usable up to `maxStreams`.
            case ready
            /// No new streams; closed once `inFlight` reaches zero.
            case draining
            /// A failed attempt waiting out its backoff; reconnects if requests still wait.
            case backingOff
        }

        let id: HTTP2ConnectionID
        var state: State
        var inFlight = 0
        var maxStreams = 0

        var freeStreams: Int {
            self.state == .ready ? max(0, self.maxStreams - self.inFlight) : 0
        }
    }

    fileprivate struct QueueEntry {
        var waiter: Waiter
        var deadline: NIODeadline
    }

    let configuration: Configuration
    private(set) var connections: [Connection] = []
    private var queue = CircularBuffer<QueueEntry>()
    private var nextConnectionID = 0
    private(set) var consecutiveConnectFailures = 0
    private var lastConnectFailure: String?
    private(set) var isShutdown = false
    /// The most streams a connection of this server has been allowed (after the local cap); `nil`
    /// until a connection is ready. Judges how many requests the connections being opened will take.
    private var largestStreamLimit: Int?
    /// The deadline of the earliest queue timer armed and not yet fired.
    private var armedQueueTimer: NIODeadline?

    /// Creates an empty pool state.
    init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The number of requests waiting for a stream.
    var queuedCount: Int {
        self.queue.count
    }

    /// A snapshot for metrics.
    var statistics: HTTP2PoolStatistics {
        var statistics = HTTP2PoolStatistics(queuedRequests: self.queue.count, consecutiveConnectFailures: self.consecutiveConnectFailures)
        for connection in self.connections {
            statistics.streamsInFlight += connection.inFlight
            switch connection.state {
            case .ready:
                statistics.openConnections += 1
                statistics.streamCapacity += connection.maxStreams
            case .connecting, .backingOff:
                statistics.pendingConnections += 1
            case .draining:
                statistics.drainingConnections += 1
            }
        }
        return statistics
    }
}

extension HTTP2PoolStateMachine: Sendable where Waiter: Sendable {}
extension HTTP2PoolStateMachine.QueueEntry: Sendable where Waiter: Sendable {}

// MARK: - Requests

extension HTTP2PoolStateMachine {
    /// A new request arrives.
    ///
    /// - Parameters:
    ///   - waiter: The request.
    ///   - deadline: When it expires if still queued.
    mutating func execute(_ waiter: Waiter, deadline: NIODeadline) -> ExecuteAction {
        if self.isShutdown {
            return .reject(.shutdown(mayHaveBeenProcessed: false))
        }
        if let index = self.indexOfConnectionWithMostFreeStreams() {
            self.connections[index].inFlight += 1
            return .dispatch(self.connections[index].id)
        }
        guard self.queue.count < self.configuration.maxQueuedRequests else {
            return .reject(.tooManyQueued(limit: self.configuration.maxQueuedRequests))
        }
        // While the server is refusing and the next attempt is not due yet, waiting would only
        // hold the request until its deadline. Once the backoff has elapsed, the next request
        // waits and opens the next attempt.
        if self.serverUnreachable, self.connections.contains(where: { $0.state == .backingOff }),
            !self.connections.contains(where: { $0.state == .connecting }), let failure = self.lastConnectFailure
        {
            return .reject(.connectFailed(failure))
        }
        self.queue.append(QueueEntry(waiter: waiter, deadline: deadline))
        return .enqueued(connect: self.openConnectionIfNeeded(), armQueueTimer: self.armQueueTimer(for: deadline))
    }

    /// A stream ended (answered, failed, expired) or could not be opened; its slot is free again.
    ///
    /// - Parameters:
    ///   - connectionID: The connection the request was dispatched to.
    ///   - retry: The request and its deadline when it must be sent again because the server did not
    ///     process it; it goes to the front of the queue, outside the queue limit.
    ///   - connectionUsable: `false` when the stream ended because its connection is going away.
    mutating func streamFinished(
        on connectionID: HTTP2ConnectionID,
        retry: (waiter: Waiter, deadline: NIODeadline)?,
        connectionUsable: Bool
    ) -> Actions {
        self.streamsFinished(on: connectionID, count: 1, retries: retry.map { [$0] } ?? [], connectionUsable: connectionUsable)
    }

    /// Several streams of one connection ended together (one read's worth); cheaper than one
    /// ``streamFinished(on:retry:connectionUsable:)`` each, with the same outcome.
    ///
    /// - Parameters:
    ///   - connectionID: The connection the requests were dispatched to.
    ///   - count: How many streams ended.
    ///   - retries: The requests to send again, in order; they go to the front of the queue.
    ///   - connectionUsable: `false` when the streams ended because their connection is going away.
    mutating func streamsFinished(
        on connectionID: HTTP2ConnectionID,
        count: Int,
        retries: [(waiter: Waiter, deadline: NIODeadline)],
        connectionUsable: Bool
    ) -> Actions {
        var actions = Actions()
        if let index = self.index(of: connectionID) {
            self.connections[index].inFlight = max(0, self.connections[index].inFlight - count)
            if !connectionUsable, self.connections[index].state == .ready {
                self.connections[index].state = .draining
            }
            self.closeIfDrained(at: index, into: &actions)
        }
        // Prepended last first, so that the retries keep their order at the front of the queue.
        for retry in retries.reversed() {
            if self.isShutdown {
                actions.fail.append((retry.waiter, .shutdown(mayHaveBeenProcessed: false)))
            } else {
                self.queue.prepend(QueueEntry(waiter: retry.waiter, deadline: retry.deadline))
                if let armed = self.armQueueTimer(for: retry.deadline) {
                    actions.armQueueTimer = min(actions.armQueueTimer ?? armed, armed)
                }
            }
        }
        self.dispatchQueued(into: &actions)
        actions.connect = self.openConnectionsIfNeeded()
        return actions
    }

    /// The queue timer fired: fail the waiters whose deadline passed.
    ///
    /// - Parameter now: The current time.
    mutating func queueTimerFired(now: NIODeadline) -> Actions {
        var actions = Actions()
        self.armedQueueTimer = nil
        guard !self.queue.isEmpty else { return actions }

        let error = self.queuedDeadlineError
        var remaining = CircularBuffer<QueueEntry>(initialCapacity: self.queue.count)
        var earliest: NIODeadline?
        for entry in self.queue {
            if entry.deadline <= now {
                actions.fail.append((entry.waiter, error))
            } else {
                remaining.append(entry)
                earliest = min(earliest ?? entry.deadline, entry.deadline)
            }
        }
        self.queue = remaining
        if let earliest {
            actions.armQueueTimer = self.armQueueTimer(for: max(earliest, now + self.configuration.queueSweepInterval))
        }
        return actions
    }

    /// The caller cancelled a request; remove it if it is still queued.
    ///
    /// Searches from the front: with one default deadline, the oldest requests are the ones that
    /// give up first.
    ///
    /// - Returns: The waiter, or `nil` if it is no longer queued (already dispatched or failed).
    mutating func cancelWaiter(_ id: Waiter.ID) -> Waiter? {
        guard let index = self.queue.firstIndex(where: { $0.waiter.id == id }) else { return nil }
        return self.queue.remove(at: index).waiter
    }

    /// Whether enough attempts in a row failed, with no connection ready, that requests stop waiting.
    private var serverUnreachable: Bool {
        let threshold = self.configuration.failWaitersAfterConnectFailures
        return threshold > 0 && self.consecutiveConnectFailures >= threshold && !self.connections.contains(where: { $0.state == .ready })
    }

    /// The error for a waiter whose deadline passed in the queue: a connect failure explains it
    /// better than the deadline when no connection is usable.
    private var queuedDeadlineError: HTTP2ClientError {
        if let failure = self.lastConnectFailure, !self.connections.contains(where: { $0.state == .ready }) {
            return .connectFailed(failure)
        }
        return .deadlineExceeded(mayHaveBeenProcessed: false)
    }
}

// MARK: - Connections

extension HTTP2PoolStateMachine {
    /// A connection received the server's first SETTINGS frame.
    mutating func connectionReady(_ connectionID: HTTP2ConnectionID, maxConcurrentStreams: Int) -> Actions {
        var actions = Actions()
        guard let index = self.index(of: connectionID), self.connections[index].state == .connecting else {
            // Shut down or reset while connecting: nobody wants this connection.
            actions.close.append(connectionID)
            return actions
        }
        self.connections[index].state = .ready
        self.connections[index].maxStreams = self.cap(maxConcurrentStreams)
        self.noteStreamLimit(self.connections[index].maxStreams)
        self.consecutiveConnectFailures = 0
        self.lastConnectFailure = nil
        self.dispatchQueued(into: &actions)
        actions.connect = self.openConnectionsIfNeeded()
        return actions
    }

    /// The server changed `SETTINGS_MAX_CONCURRENT_STREAMS` on a connection.
    mutating func maxConcurrentStreamsChanged(_ connectionID: HTTP2ConnectionID, to maxConcurrentStreams: Int) -> Actions {
        var actions = Actions()
        guard let index = self.index(of: connectionID) else { return actions }
        // Lowering below the in-flight count is fine: freeStreams stays 0 until enough streams end.
        self.connections[index].maxStreams = self.cap(maxConcurrentStreams)
        self.noteStreamLimit(self.connections[index].maxStreams)
        self.dispatchQueued(into: &actions)
        actions.connect = self.openConnectionsIfNeeded()
        return actions
    }

    /// The server sent GOAWAY on a ready connection: take no new streams there.
    mutating func goAwayReceived(_ connectionID: HTTP2ConnectionID) -> Actions {
        var actions = Actions()
        guard let index = self.index(of: connectionID) else { return actions }
        if self.connections[index].state == .ready {
            self.connections[index].state = .draining
        }
        self.closeIfDrained(at: index, into: &actions)
        actions.connect = self.openConnectionsIfNeeded()
        return actions
    }

    /// A connection's channel closed, or it could not be opened.
    ///
    /// - Parameters:
    ///   - connectionID: The connection.
    ///   - wasReady: Whether it ever became ready; if not, this is a failed attempt and backoff applies.
    ///   - reason: Why, kept to explain waiters that expire while no connection works.
    mutating func connectionClosed(_ connectionID: HTTP2ConnectionID, wasReady: Bool, reason: String) -> Actions {
        var actions = Actions()
        guard let index = self.index(of: connectionID) else { return actions }
        if !wasReady, self.connections[index].state == .connecting {
            self.consecutiveConnectFailures += 1
            self.lastConnectFailure = reason
            self.connections[index].state = .backingOff
            if self.serverUnreachable, !self.connections.contains(where: { $0.state == .connecting }) {
                while let entry = self.queue.popFirst() {
                    actions.fail.append((entry.waiter, .connectFailed(reason)))
                }
            }
            actions.scheduleReconnect = (
                connectionID,
                self.configuration.backoff.delay(afterFailures: self.consecutiveConnectFailures)
            )
            return actions
        }
        if self.connections[index].state == .backingOff {
            return actions
        }
        // Its in-flight streams have failed by now (their channels close first); forget them.
        self.connections.remove(at: index)
        actions.connect = self.openConnectionsIfNeeded()
        return actions
    }

    /// A failed attempt's backoff elapsed.
    mutating func backoffElapsed(_ connectionID: HTTP2ConnectionID) -> Actions {
        var actions = Actions()
        guard let index = self.index(of: connectionID), self.connections[index].state == .backingOff else { return actions }
        self.connections.remove(at: index)
        // Reconnect only for waiting requests; the next request opens a connection otherwise.
        actions.connect = self.openConnectionsIfNeeded()
        return actions
    }

    /// A burst of requests is coming: open a connection now if none is open, being opened or
    /// backing off, so that connecting overlaps the caller's preparation of the burst. The burst's
    /// first requests then find the server's stream limit known and open the rest at once.
    mutating func warmUp() -> Actions {
        var actions = Actions()
        guard !self.isShutdown, self.connections.allSatisfy({ $0.state == .draining }),
            self.configuration.maxConnections > 0
        else { return actions }
        actions.connect = [self.newConnection()]
        return actions
    }

    /// Drain every ready connection: new requests go to new connections, in-flight ones finish.
    mutating func resetConnections() -> Actions {
        var actions = Actions()
        var index = self.connections.startIndex
        while index < self.connections.endIndex {
            if self.connections[index].state == .ready {
                self.connections[index].state = .draining
            }
            if self.connections[index].state == .draining, self.connections[index].inFlight == 0 {
                actions.close.append(self.connections[index].id)
                self.connections.remove(at: index)
            } else {
                index += 1
            }
        }
        actions.connect = self.openConnectionsIfNeeded()
        return actions
    }

    /// Stop: fail every queued request and close every connection.
    mutating func shutdown() -> Actions {
        var actions = Actions()
        guard !self.isShutdown else { return actions }
        self.isShutdown = true
        while let entry = self.queue.popFirst() {
            actions.fail.append((entry.waiter, .shutdown(mayHaveBeenProcessed: false)))
        }
        actions.close = self.connections.map(\.id)
        self.connections.removeAll()
        return actions
    }
}

// MARK: - Helpers

extension HTTP2PoolStateMachine {
    private func index(of connectionID: HTTP2ConnectionID) -> Int? {
        // A linear scan: a pool has a handful of connections, fewer than a dictionary's hashing costs.
        self.connections.firstIndex(where: { $0.id == connectionID })
    }

    private func cap(_ maxConcurrentStreams: Int) -> Int {
        max(0, min(maxConcurrentStreams, self.configuration.maxConcurrentStreamsPerConnection))
    }

    /// The ready connection with the most free streams, which spreads load evenly and favours a
    /// connection whose limit was just raised (APNs raises it per connection after authentication).
    private func indexOfConnectionWithMostFreeStreams() -> Int? {
        var best: Int?
        var bestFree = 0
        for index in self.connections.indices {
            let free = self.connections[index].freeStreams
            if free > bestFree {
                best = index
                bestFree = free
            }
        }
        return best
    }

    private mutating func dispatchQueued(into actions: inout Actions) {
        while !self.queue.isEmpty, let index = self.indexOfConnectionWithMostFreeStreams() {
            let entry = self.queue.removeFirst()
            self.connections[index].inFlight += 1
            actions.dispatch.append((entry.waiter, self.connections[index].id))
        }
    }

    private mutating func closeIfDrained(at index: Int, into actions: inout Actions) {
        guard self.connections[index].state == .draining, self.connections[index].inFlight == 0 else { return }
        actions.close.append(self.connections[index].id)
        self.connections.remove(at: index)
    }

    /// Opens one more connection when requests wait and the pool is below its limit, unless a failed
    /// attempt is backing off. While connections are being opened, another opens only when more
    /// requests wait than those will take (judged by the largest stream limit a connection has had),
    /// so that a burst grows the pool in one round trip instead of one connection at a time; before
    /// any connection was ready, one attempt at a time learns the server. Draining connections do
    /// not count: they take no new streams.
    private mutating func openConnectionIfNeeded() -> HTTP2ConnectionID? {
        guard !self.isShutdown, !self.queue.isEmpty else { return nil }
        var open = 0
        var connecting = 0
        for connection in self.connections {
            switch connection.state {
            case .backingOff:
                return nil
            case .connecting:
                connecting += 1
                open += 1
            case .ready:
                open += 1
            case .draining:
                break
            }
        }
        guard open < self.configuration.maxConnections else { return nil }
        if connecting > 0 {
            guard let perConnection = self.largestStreamLimit, self.queue.count > connecting * max(1, perConnection) else { return nil }
        }
        return self.newConnection()
    }

    private mutating func newConnection() -> HTTP2ConnectionID {
        let id = HTTP2ConnectionID(rawValue: self.nextConnectionID)
        self.nextConnectionID += 1
        self.connections.append(Connection(id: id, state: .connecting))
        return id
    }

    /// Opens as many connections as ``openConnectionIfNeeded()`` allows one after the other: when
    /// the first connection reports its stream limit with a burst waiting, the pool grows to what
    /// the burst needs in that one step rather than by one connection per later event.
    private mutating func openConnectionsIfNeeded() -> [HTTP2ConnectionID] {
        var opened: [HTTP2ConnectionID] = []
        while let id = self.openConnectionIfNeeded() {
            opened.append(id)
        }
        return opened
    }

    private mutating func noteStreamLimit(_ limit: Int) {
        self.largestStreamLimit = max(self.largestStreamLimit ?? 0, limit)
    }

    private mutating func armQueueTimer(for deadline: NIODeadline) -> NIODeadline? {
        if let armed = self.armedQueueTimer, armed <= deadline {
            return nil
        }
        self.armedQueueTimer = deadline
        return deadline
    }
}
