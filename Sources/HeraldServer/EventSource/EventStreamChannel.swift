import NIOCore

/// The hub's handle on a listener that ``EventStreamTakeover`` serves: usable from any thread,
/// it hands each message to the connection's event loop.
struct EventStreamChannel: Sendable {
    let takeover: NIOLoopBound<EventStreamTakeover>

    /// Writes `message` to the listener, or disconnects it when it has fallen too far behind.
    func send(_ message: ByteBuffer) {
        let takeover = self.takeover
        takeover.eventLoop.execute { takeover.value.send(message) }
    }

    /// Ends the response and closes the connection.
    func finish() {
        let takeover = self.takeover
        takeover.eventLoop.execute { takeover.value.finish() }
    }
}
