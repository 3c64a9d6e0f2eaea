import NIOCore

/// A `Sendable` reference to an open connection, for actions started outside its event loop.
struct SimulatorHTTP2ConnectionHandle: Sendable {
    let channel: any Channel
    let state: NIOLoopBound<SimulatorHTTP2Connection>

    /// Runs `body` with the connection's state on its event loop.
    func execute(_ body: @escaping @Sendable (SimulatorHTTP2Connection) -> Void) {
        let state = self.state
        self.channel.eventLoop.execute { body(state.value) }
    }
}
