extension ZeroMQSocket {
    /// Serves a reply socket: answers every request with what `handler` returns, one request at a
    /// time (a REP socket's own rule), until ``stopReceiving()`` or ``close()`` is called or the
    /// task is cancelled. A request being handled then still gets its answer.
    ///
    /// - Throws: a libzmq failure other than the socket stopping.
    public func serve(_ handler: (ZeroMQMessage) async -> [UInt8]) async throws(ZeroMQError) {
        while true {
            let request: ZeroMQMessage
            do throws(ZeroMQError) {
                request = try await receive()
            } catch where error == .closed || error == .cancelled {
                return
            }
            let reply = await handler(request)
            do throws(ZeroMQError) {
                try await send(reply)
            } catch where error == .closed {
                return
            } catch where error == .cancelled {
                // Cancelled while the reply waited for room (it never does on a REP socket):
                // the socket is being shut down anyway.
                return
            }
        }
    }

    /// Sends `request` on a request socket and returns the reply, waiting at most `timeout` for it.
    public func request(_ request: [UInt8], timeout: Duration? = nil) async throws(ZeroMQError) -> [UInt8] {
        try await send(request)
        return try await receive(timeout: timeout).bytes
    }
}
