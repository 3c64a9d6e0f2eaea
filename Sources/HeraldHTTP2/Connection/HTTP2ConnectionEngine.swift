import NIOHTTP2

/// What the engine-independent ``HTTP2ConnectionCore`` asks of an engine: put requests, resets and
/// PINGs on the wire, and flush.
///
/// Implemented by each engine's channel handler (``NIOHTTP2ConnectionHandler``,
/// ``NGHTTP2ConnectionHandler``). The core calls it on the channel's event loop, and only while
/// the handler is in the pipeline (between `handlerAdded` and `handlerRemoved`).
protocol HTTP2ConnectionEngine: AnyObject {
    /// The ID the next stream will get, or `nil` when the engine can open no more streams (the
    /// client stream IDs are used up, or it sent or received GOAWAY).
    var nextStreamID: HTTP2StreamID? { get }

    /// Writes the request of `stream`, which has the ID ``nextStreamID`` gave, unflushed: HEADERS,
    /// then DATA when it has a body. Calls ``HTTP2StreamHandler/markSent()`` once the server may see it.
    ///
    /// - Parameters:
    ///   - stream: The stream, already registered with the connection.
    ///   - indexingUniqueField: Whether the request's unique field goes into the HPACK dynamic table
    ///     (see ``HTTP2UniqueField``).
    /// - Returns: `false` if the stream could not be opened; nothing of it reached the server, and
    ///   the core abandons it.
    func writeRequest(of stream: HTTP2StreamHandler, indexingUniqueField: Bool) -> Bool

    /// Writes RST_STREAM CANCEL for a stream the client gave up, unflushed; the engine closes the
    /// stream afterwards, which releases it.
    func writeReset(_ streamID: HTTP2StreamID)

    /// Writes a PING carrying `data`, unflushed.
    func writePing(_ data: UInt64)

    /// Sends everything written so far.
    func flush()
}
