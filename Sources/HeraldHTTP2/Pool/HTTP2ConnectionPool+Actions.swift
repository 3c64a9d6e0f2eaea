import NIOCore

extension HTTP2ConnectionPool {
    /// The state machine's actions with connection IDs turned into objects, so that they can be
    /// performed outside the lock.
    struct ResolvedActions {
        /// Requests to start, grouped by connection so that each connection takes its share in one batch.
        var dispatch: [(connection: HTTP2Connection, requests: [HTTP2RequestContext])] = []
        var fail: [(request: HTTP2RequestContext, error: HTTP2ClientError)] = []
        var connect: [HTTP2Connection] = []
        var close: [HTTP2Connection] = []
        var scheduleReconnect: (connection: HTTP2ConnectionID, delay: Duration)?
        var armQueueTimer: NIODeadline?
    }

    /// Sends started requests to connections, or queues or rejects them: under one lock for all,
    /// and each connection gets its share at once. A single `execute` is a batch of one.
    func submit(contentsOf requests: [HTTP2RequestContext]) {
        guard !requests.isEmpty else { return }
        var queued: [HTTP2RequestContext] = []
        var rejected: [(request: HTTP2RequestContext, error: HTTP2ClientError)] = []
        var dispatch: [(connection: HTTP2Connection, requests: [HTTP2RequestContext])] = []
        var connects: [HTTP2Connection] = []
        var queueTimer: NIODeadline?
        self.state.withLockedValue { state in
            for request in requests {
                switch state.machine.execute(request, deadline: request.deadline) {
                case .dispatch(let id):
                    // A pool has a handful of connections: a linear search beats hashing.
                    if let index = dispatch.firstIndex(where: { $0.connection.id == id }) {
                        dispatch[index].requests.append(request)
                    } else if let connection = state.connections[id] {
                        dispatch.append((connection, [request]))
                    } else {
                        preconditionFailure("the state machine dispatched to unknown connection \(id)")
                    }
                case .enqueued(let connect, let armQueueTimer):
                    queued.append(request)
                    if let connect { connects.append(self.makeConnection(connect, in: &state)) }
                    if let armQueueTimer { queueTimer = min(queueTimer ?? armQueueTimer, armQueueTimer) }
                case .reject(let error):
                    rejected.append((request, error))
                }
            }
        }
        for (connection, requests) in dispatch {
            connection.startStreams(requests)
        }
        for connection in connects {
            connection.connect()
        }
        if let queueTimer {
            self.armQueueTimer(at: queueTimer)
        }
        for (request, error) in rejected {
            request.finish(.failure(error))
        }
        // Cancellation may have come while the requests were on their way into the queue.
        for request in queued where request.isCancelRequested {
            self.removeCancelled(request)
        }
    }

    /// Reaches a request wherever it is when its task is cancelled.
    func cancel(_ request: HTTP2RequestContext) {
        switch request.requestCancellation() {
        case .created, .finished:
            // Not submitted yet (`start` sees the flag) or already answered.
            break
        case .pending:
            self.removeCancelled(request)
        case .onStream(let handler):
            handler.eventLoop.execute {
                handler.value.cancel()
            }
        }
    }

    func removeCancelled(_ request: HTTP2RequestContext) {
        let removed = self.state.withLockedValue { $0.machine.cancelWaiter(request.id) }
        removed?.finish(.failure(.cancelled(mayHaveBeenProcessed: false)))
    }

    /// Creates the connection object for a new connection ID; the caller connects it outside the lock.
    func makeConnection(_ id: HTTP2ConnectionID, in state: inout State) -> HTTP2Connection {
        let connection = HTTP2Connection(
            id: id,
            eventLoop: self.eventLoopGroup.next(),
            settings: self.settings,
            delegate: self,
            logger: self.logger
        )
        state.connections[id] = connection
        return connection
    }

    /// Turns connection IDs into objects; must run inside the lock.
    func resolve(_ actions: HTTP2PoolStateMachine<HTTP2RequestContext>.Actions, in state: inout State) -> ResolvedActions {
        var resolved = ResolvedActions()
        for (request, id) in actions.dispatch {
            // A pool has a handful of connections: a linear search beats hashing.
            if let index = resolved.dispatch.firstIndex(where: { $0.connection.id == id }) {
                resolved.dispatch[index].requests.append(request)
                continue
            }
            guard let connection = state.connections[id] else {
                preconditionFailure("the state machine dispatched to unknown connection \(id)")
            }
            resolved.dispatch.append((connection, [request]))
        }
        resolved.fail = actions.fail.map { ($0.waiter, $0.error) }
        resolved.connect = actions.connect.map { self.makeConnection($0, in: &state) }
        resolved.close = actions.close.compactMap { state.connections[$0] }
        resolved.scheduleReconnect = actions.scheduleReconnect
        resolved.armQueueTimer = actions.armQueueTimer
        return resolved
    }

    /// Performs resolved actions; never call with the lock held.
    func perform(_ actions: ResolvedActions, closeReason: HTTP2ConnectionCloseReason) {
        for (connection, requests) in actions.dispatch {
            connection.startStreams(requests)
        }
        for (request, error) in actions.fail {
            request.finish(.failure(error))
        }
        for connection in actions.close {
            connection.close(reason: closeReason)
        }
        for connection in actions.connect {
            connection.connect()
        }
        if let (id, delay) = actions.scheduleReconnect {
            var generator = SystemRandomNumberGenerator()
            let jittered = self.configuration.reconnectBackoff.jittered(delay, using: &generator)
            self.logger.debug("reconnecting after backoff", metadata: ["h2.connection": "\(id)", "h2.backoff": "\(jittered)"])
            self.timerLoop.scheduleTask(in: TimeAmount(jittered)) { [weak self] in
                self?.backoffElapsed(id)
            }
        }
        if let deadline = actions.armQueueTimer {
            self.armQueueTimer(at: deadline)
        }
    }

    func armQueueTimer(at deadline: NIODeadline) {
        self.timerLoop.scheduleTask(deadline: deadline) { [weak self] in
            self?.queueTimerFired()
        }
    }

    private func queueTimerFired() {
        let actions = self.state.withLockedValue { state in
            self.resolve(state.machine.queueTimerFired(now: .now()), in: &state)
        }
        self.perform(actions, closeReason: .drained)
    }

    private func backoffElapsed(_ id: HTTP2ConnectionID) {
        let actions = self.state.withLockedValue { state in
            self.resolve(state.machine.backoffElapsed(id), in: &state)
        }
        self.perform(actions, closeReason: .drained)
    }
}
