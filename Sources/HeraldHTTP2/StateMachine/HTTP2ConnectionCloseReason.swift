/// Why a connection stopped taking streams, and what its in-flight requests should be told.
enum HTTP2ConnectionCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// TCP connect or the TLS handshake failed.
    case connectFailed(String)
    /// The server selected another ALPN protocol than `h2`, or none.
    case alpnMismatch(String?)
    /// No SETTINGS frame arrived within the connect timeout.
    case readyTimeout
    /// The server sent GOAWAY; the text is its error code and debug reason.
    case goAway(String)
    /// A PING went unanswered for the PING timeout.
    case pingTimeout
    /// nio-http2 detected a connection error and sent GOAWAY itself.
    case protocolError(String)
    /// The pool closed the connection after its last stream (GOAWAY drained, or `resetConnections()`).
    case drained
    /// The pool is shutting down.
    case shutdown
    /// The server or the network closed the connection.
    case remoteClosed(String?)

    /// The reason as a short phrase, for logs and error messages.
    var description: String {
        switch self {
        case .connectFailed(let detail): detail
        case .alpnMismatch(let selected): "the server did not select ALPN h2 (selected: \(selected ?? "none"))"
        case .readyTimeout: "no SETTINGS frame from the server within the connect timeout"
        case .goAway(let detail): "GOAWAY: \(detail)"
        case .pingTimeout: "no PING answer within the PING timeout"
        case .protocolError(let detail): "HTTP/2 connection error: \(detail)"
        case .drained: "closed by the pool after its last stream"
        case .shutdown: "the pool is shutting down"
        case .remoteClosed(let detail): detail ?? "closed by the peer"
        }
    }

    /// The error given to a request whose stream was in flight when the connection closed for this reason.
    var inFlightError: HTTP2ClientError {
        switch self {
        case .shutdown:
            .shutdown(mayHaveBeenProcessed: true)
        case .goAway(let detail):
            .goAway(detail, mayHaveBeenProcessed: true)
        default:
            .connectionClosed(self.description)
        }
    }
}
