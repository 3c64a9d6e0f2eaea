extension HTTP2ClientError {
    /// The category of an ``HTTP2ClientError``, comparable with `==`.
    ///
    /// A struct rather than a public enum so that categories can be added without breaking
    /// exhaustive `switch`es in callers.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case deadlineExceeded
            case connectFailed
            case goAway
            case streamReset
            case connectionClosed
            case tooManyQueued
            case shutdown
            case cancelled
            case protocolError
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The deadline passed while the request waited for a stream or for the response; the stream was reset.
        public static let deadlineExceeded = Kind(.deadlineExceeded)
        /// No connection could be opened before the deadline (refused, TLS or ALPN failure, timeout).
        public static let connectFailed = Kind(.connectFailed)
        /// The server sent GOAWAY and the connection ended before the response.
        public static let goAway = Kind(.goAway)
        /// The server reset the stream with RST_STREAM.
        public static let streamReset = Kind(.streamReset)
        /// The connection closed while the request was in flight.
        public static let connectionClosed = Kind(.connectionClosed)
        /// Too many requests were already waiting for a stream (back-pressure).
        public static let tooManyQueued = Kind(.tooManyQueued)
        /// The pool was shut down.
        public static let shutdown = Kind(.shutdown)
        /// The calling task was cancelled.
        public static let cancelled = Kind(.cancelled)
        /// The server's response broke HTTP/2 or HTTP semantics.
        public static let protocolError = Kind(.protocolError)

        /// The category name, such as `deadlineExceeded`.
        public var description: String {
            self.base.rawValue
        }
    }
}
