/// What a stream does after its request was processed.
enum APNsAction {
    /// Answer, after a delay when it is positive.
    case respond(APNsResponse, delayMilliseconds: Int)
    /// Never answer.
    case hang
    /// End the connection with a `GOAWAY` carrying `{"reason":…}` that excludes this stream.
    case goAway(reason: String)
    /// Close the TCP connection abruptly.
    case resetConnection
}
