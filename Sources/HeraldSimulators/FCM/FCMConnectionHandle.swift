import NIOCore

/// A `Sendable` reference to an open connection, for actions started outside its event loop.
struct FCMConnectionHandle: Sendable {
    let channel: any Channel
    let state: NIOLoopBound<FCMConnectionState>

    /// Runs `body` with the connection's state on its event loop.
    func execute(_ body: @escaping @Sendable (FCMConnectionState) -> Void) {
        let state = self.state
        self.channel.eventLoop.execute { body(state.value) }
    }
}
