/// What one push2mob socket does with its two commands; each returns the reply's text.
protocol Push2mobSocketHandler: Sendable {
    /// The socket's name in logs, metrics and bound addresses (`apns`, `gcm`).
    var socket: String { get }
    /// A send command's arguments (the text after `send `).
    func send(_ arguments: Substring) async throws(Push2mobRefusal) -> String
    /// The feedback not yet returned, as the `OK ...` reply.
    func feedback() async throws(Push2mobRefusal) -> String
}
