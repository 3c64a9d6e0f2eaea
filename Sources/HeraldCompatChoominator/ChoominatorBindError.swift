import NIOCore

/// No address of a Choominator port could be bound: the front-end cannot serve.
struct ChoominatorBindError: Error, CustomStringConvertible {
    /// The port's name (`registration`, `notification`).
    let port: String
    /// The addresses tried.
    let addresses: [SocketAddress]

    var description: String {
        "cannot bind the Choominator \(port) port on any of \(addresses.map { "\($0)" }.joined(separator: ", "))"
    }
}
