/// Receives what happens on a connection; the pool implements it.
///
/// Called on the connection's event loop, so implementations must not block.
protocol HTTP2ConnectionDelegate: AnyObject, Sendable {
    /// The server's first SETTINGS frame arrived; streams may be opened.
    func connectionReady(_ id: HTTP2ConnectionID, maxConcurrentStreams: Int)

    /// The usable stream limit changed.
    func connectionMaxConcurrentStreamsChanged(_ id: HTTP2ConnectionID, to maxConcurrentStreams: Int)

    /// The server sent GOAWAY on a ready connection.
    func connectionReceivedGoAway(_ id: HTTP2ConnectionID, reason: String)

    /// The connection is gone (or never came up); reported exactly once per connection.
    func connectionClosed(_ id: HTTP2ConnectionID, reason: HTTP2ConnectionCloseReason, wasReady: Bool)

    /// A stream dispatched to the connection ended, or could not be opened.
    ///
    /// - Parameters:
    ///   - id: The connection.
    ///   - retry: The request, when it must be sent again because the server did not process it.
    ///   - connectionUsable: `false` when the connection can take no more streams.
    func streamFinished(on id: HTTP2ConnectionID, retry: HTTP2RequestContext?, connectionUsable: Bool)

    /// Several streams of one read ended together; the same as `count` calls of
    /// ``streamFinished(on:retry:connectionUsable:)``, with `retries` handed back in order.
    func streamsFinished(on id: HTTP2ConnectionID, count: Int, retries: [HTTP2RequestContext], connectionUsable: Bool)
}
