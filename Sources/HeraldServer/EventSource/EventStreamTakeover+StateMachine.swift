extension EventStreamTakeover {
    /// What a connection is doing, and what each of its events calls for; the handler acts on the answers.
    struct StateMachine {
        private enum Phase {
            /// Requests pass to the router; `responsesOwed` have been passed and not yet answered in full.
            case relaying(responsesOwed: Int)
            /// The connection is listener `listener`'s event stream; `unsent` messages are on their way to the socket.
            case streaming(listener: Int, unsent: Int)
            /// The stream ended; `listener` is still the hub's until the connection closes.
            case finished(listener: Int?)
        }

        private var phase = Phase.relaying(responsesOwed: 0)
        /// How many messages a listener may have on their way before it is disconnected as too slow.
        let maxUnsent: Int

        /// Creates the state of a new connection.
        init(maxUnsent: Int) {
            self.maxUnsent = maxUnsent
        }

        /// Whether a request that just arrived may be served here: only when every earlier request
        /// on the connection has been answered in full, so that no answer of the router's can be
        /// interleaved with the stream.
        var mayTakeOver: Bool {
            if case .relaying(0) = phase { return true }
            return false
        }

        /// Whether the connection is an event stream (inbound bytes are then ignored).
        var isStreaming: Bool {
            if case .streaming = phase { return true }
            return false
        }

        /// A request head was passed to the router.
        mutating func relayedRequest() {
            if case .relaying(let owed) = phase { phase = .relaying(responsesOwed: owed + 1) }
        }

        /// The router finished an answer.
        mutating func relayedResponseEnd() {
            if case .relaying(let owed) = phase { phase = .relaying(responsesOwed: max(0, owed - 1)) }
        }

        /// The connection became listener `listener`'s event stream.
        mutating func tookOver(listener: Int) {
            precondition(mayTakeOver, "an event stream can only start on a connection that owes no answer")
            phase = .streaming(listener: listener, unsent: 0)
        }

        /// What to do with a message for the listener.
        enum SendAction: Equatable {
            /// Write it.
            case write
            /// The listener fell `maxUnsent` messages behind: disconnect listener `listener`.
            case disconnect(listener: Int)
            /// The stream is over (or never began): drop it.
            case drop
        }

        /// A message is to be sent.
        mutating func send() -> SendAction {
            guard case .streaming(let listener, let unsent) = phase else { return .drop }
            guard unsent < maxUnsent else { return .disconnect(listener: listener) }
            phase = .streaming(listener: listener, unsent: unsent + 1)
            return .write
        }

        /// A message's write completed (or failed: the connection is closing either way).
        mutating func sent() {
            if case .streaming(let listener, let unsent) = phase { phase = .streaming(listener: listener, unsent: max(0, unsent - 1)) }
        }

        /// Whether to end the stream: `true` once, while it runs.
        mutating func finish() -> Bool {
            guard case .streaming(let listener, _) = phase else { return false }
            phase = .finished(listener: listener)
            return true
        }

        /// The connection closed; returns the listener the hub must forget, if it was one.
        mutating func closed() -> Int? {
            defer { phase = .finished(listener: nil) }
            switch phase {
            case .streaming(let listener, _), .finished(let listener?): return listener
            case .relaying, .finished(nil): return nil
            }
        }
    }
}
