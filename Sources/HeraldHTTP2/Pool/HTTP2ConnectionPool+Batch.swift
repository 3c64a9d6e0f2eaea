import NIOCore

extension HTTP2ConnectionPool {
    /// Sends many requests, at most `maxConcurrent` at a time, and returns once every one is answered.
    ///
    /// The batch costs one task and one continuation: each result is handed to `onResponse` as it
    /// arrives, with the request's index, and the next request is submitted from there. The handler
    /// runs on whatever thread completed the request (usually an event loop), possibly on several
    /// at once: keep it short and thread-safe. It is called exactly once per request before this
    /// method returns. Cancelling the calling task fails the requests not yet answered with
    /// ``HTTP2ClientError/cancelled(mayHaveBeenProcessed:)``.
    ///
    /// - Parameters:
    ///   - requests: The requests, sent in order as the window allows.
    ///   - maxConcurrent: The most requests of this batch in flight (or queued in the pool) at once.
    ///   - deadline: How long each request may take from its submission, including the wait for a
    ///     stream; ``HTTP2ClientConfiguration/streamDeadline`` when `nil`.
    ///   - onResponse: Receives each request's index and result.
    public func execute(
        _ requests: [HTTP2Request],
        maxConcurrent: Int,
        deadline: Duration? = nil,
        onResponse: @escaping @Sendable (Int, Result<HTTP2Response, HTTP2ClientError>) -> Void
    ) async {
        let batch = HTTP2BatchExecution(
            pool: self,
            requests: requests,
            maxConcurrent: maxConcurrent,
            deadline: deadline ?? self.configuration.streamDeadline,
            onResponse: onResponse
        )
        await batch.run()
    }

    /// Sends or queues several started requests under one lock, and hands each connection its share at once.
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
}
