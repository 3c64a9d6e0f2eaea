import NIOCore

extension HTTP2ConnectionPool {
    /// Sends many requests, at most `maxConcurrent` at a time, and returns once every one is answered.
    ///
    /// The batch costs one task and one continuation: each result is handed to `onResponse` as it
    /// arrives, with the request's index, and the next request is submitted from there. The handler
    /// runs on whatever thread completed the request (usually an event loop), possibly on several
    /// at once: keep it short and thread-safe. It is called exactly once per request before this
    /// method returns. Cancelling the calling task fails the requests not yet answered with
    /// ``HTTP2ClientError/cancelled(mayHaveBeenProcessed:)``.
    ///
    /// - Parameters:
    ///   - requests: The requests, sent in order as the window allows.
    ///   - maxConcurrent: The most requests of this batch in flight (or queued in the pool) at once.
    ///   - deadline: How long each request may take from its submission, including the wait for a
    ///     stream; ``HTTP2ClientConfiguration/streamDeadline`` when `nil`.
    ///   - onResponse: Receives each request's index and result.
    public func execute(
        _ requests: [HTTP2Request],
        maxConcurrent: Int,
        deadline: Duration? = nil,
        onResponse: @escaping @Sendable (Int, Result<HTTP2Response, HTTP2ClientError>) -> Void
    ) async {
        let batch = HTTP2BatchExecution(
            pool: self,
            requests: requests,
            maxConcurrent: maxConcurrent,
            deadline: deadline ?? self.configuration.streamDeadline,
            onResponse: onResponse
        )
        await batch.run()
    }
}
