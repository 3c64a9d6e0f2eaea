import NIOCore

extension HTTP2PoolStateMachine {
    /// What to do with a new request.
    enum ExecuteAction {
        /// Open a stream for it on this connection (its slot is already counted).
        case dispatch(HTTP2ConnectionID)
        /// It waits in the queue; open `connect` if set, and arm the queue timer at `armQueueTimer` if set.
        case enqueued(connect: HTTP2ConnectionID?, armQueueTimer: NIODeadline?)
        /// Fail it at once.
        case reject(HTTP2ClientError)
    }

    /// What to do after any other event; empty arrays cost no allocation.
    struct Actions {
        /// Open a stream for each waiter on its connection.
        var dispatch: [(waiter: Waiter, connection: HTTP2ConnectionID)] = []
        /// Fail each waiter with its error.
        var fail: [(waiter: Waiter, error: HTTP2ClientError)] = []
        /// Open these new connections.
        var connect: [HTTP2ConnectionID] = []
        /// Close these connections (their slots are already gone).
        var close: [HTTP2ConnectionID] = []
        /// Call `backoffElapsed` for this connection after the delay (plus jitter).
        var scheduleReconnect: (connection: HTTP2ConnectionID, delay: Duration)?
        /// Call `queueTimerFired` at this time.
        var armQueueTimer: NIODeadline?
    }
}
