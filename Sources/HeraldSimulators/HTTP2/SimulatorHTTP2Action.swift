/// What a stream does after its request was processed.
enum SimulatorHTTP2Action<Response> {
    /// Answer, after a delay when it is positive.
    case respond(Response, delayMilliseconds: Int)
    /// Never answer.
    case hang
    /// End the connection with a graceful `GOAWAY` (`NO_ERROR`) that excludes this stream, so the client knows it
    /// was not processed; `debugText`, when given, goes out as the frame's debug data.
    case goAway(debugText: String?)
    /// Close the TCP connection abruptly.
    case resetConnection
}
