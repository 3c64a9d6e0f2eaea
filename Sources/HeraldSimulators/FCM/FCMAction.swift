/// What a stream does after its request was processed.
enum FCMAction {
    /// Answer, after a delay when it is positive.
    case respond(FCMResponse, delayMilliseconds: Int)
    /// Never answer.
    case hang
    /// End the connection with a `GOAWAY` that excludes this stream.
    case goAway
    /// Close the TCP connection abruptly.
    case resetConnection
}
