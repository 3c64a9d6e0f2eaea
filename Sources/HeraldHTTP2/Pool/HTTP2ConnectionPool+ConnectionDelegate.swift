extension HTTP2ConnectionPool: HTTP2ConnectionDelegate {
    func connectionReady(_ id: HTTP2ConnectionID, maxConcurrentStreams: Int) {
        let actions = self.state.withLockedValue { state in
            self.resolve(state.machine.connectionReady(id, maxConcurrentStreams: maxConcurrentStreams), in: &state)
        }
        self.perform(actions, closeReason: .drained)
    }

    func connectionMaxConcurrentStreamsChanged(_ id: HTTP2ConnectionID, to maxConcurrentStreams: Int) {
        let actions = self.state.withLockedValue { state in
            self.resolve(state.machine.maxConcurrentStreamsChanged(id, to: maxConcurrentStreams), in: &state)
        }
        self.perform(actions, closeReason: .drained)
    }

    func connectionReceivedGoAway(_ id: HTTP2ConnectionID, reason: String) {
        let actions = self.state.withLockedValue { state in
            self.resolve(state.machine.goAwayReceived(id), in: &state)
        }
        self.perform(actions, closeReason: .drained)
    }

    func connectionClosed(_ id: HTTP2ConnectionID, reason: HTTP2ConnectionCloseReason, wasReady: Bool) {
        if !wasReady {
            self.logger.warning("HTTP/2 connection attempt failed", metadata: ["h2.connection": "\(id)", "h2.close_reason": "\(reason)"])
        }
        let actions = self.state.withLockedValue { state in
            state.connections[id] = nil
            return self.resolve(state.machine.connectionClosed(id, wasReady: wasReady, reason: reason.description), in: &state)
        }
        self.perform(actions, closeReason: .drained)
    }

    func streamFinished(on id: HTTP2ConnectionID, retry: HTTP2RequestContext?, connectionUsable: Bool) {
        let actions = self.state.withLockedValue { state in
            let actions = state.machine.streamFinished(
                on: id,
                retry: retry.map { ($0, $0.deadline) },
                connectionUsable: connectionUsable
            )
            return self.resolve(actions, in: &state)
        }
        self.perform(actions, closeReason: .drained)
        // Cancellation may have come while the request was on its way back into the queue.
        if let retry, retry.isCancelRequested {
            self.removeCancelled(retry)
        }
    }

    func streamsFinished(on id: HTTP2ConnectionID, count: Int, retries: [HTTP2RequestContext], connectionUsable: Bool) {
        let actions = self.state.withLockedValue { state in
            let actions = state.machine.streamsFinished(
                on: id,
                count: count,
                retries: retries.map { ($0, $0.deadline) },
                connectionUsable: connectionUsable
            )
            return self.resolve(actions, in: &state)
        }
        self.perform(actions, closeReason: .drained)
        // Cancellation may have come while the requests were on their way back into the queue.
        for retry in retries where retry.isCancelRequested {
            self.removeCancelled(retry)
        }
    }
}
