import NIOHTTP2

/// Why an ``HTTP2ConnectionPool`` request failed.
///
/// Compare ``kind`` against the static members of ``Kind`` to branch; ``isRetryable`` and
/// ``mayHaveBeenProcessed`` carry the two facts a push provider needs to decide on a retry
/// without knowing HTTP/2 details.
public struct HTTP2ClientError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case deadlineExceeded
        case connectFailed(String)
        case goAway(String?)
        case streamReset(HTTP2ErrorCode)
        case connectionClosed(String?)
        case tooManyQueued(limit: Int)
        case shutdown
        case cancelled
        case protocolError(String)
    }

    private let code: Code

    /// Whether the server may have acted on the request before the failure.
    ///
    /// `false` is a guarantee: the request never reached the server, or the server said it did
    /// not process it (REFUSED_STREAM, a stream above a GOAWAY's last stream ID). `true` means
    /// a retry could duplicate a notification.
    public let mayHaveBeenProcessed: Bool

    private init(_ code: Code, mayHaveBeenProcessed: Bool) {
        self.code = code
        self.mayHaveBeenProcessed = mayHaveBeenProcessed
    }

    /// The category of the failure.
    public var kind: Kind {
        switch self.code {
        case .deadlineExceeded: .deadlineExceeded
        case .connectFailed: .connectFailed
        case .goAway: .goAway
        case .streamReset: .streamReset
        case .connectionClosed: .connectionClosed
        case .tooManyQueued: .tooManyQueued
        case .shutdown: .shutdown
        case .cancelled: .cancelled
        case .protocolError: .protocolError
        }
    }

    /// Whether sending the request again (possibly after a delay) can succeed.
    ///
    /// Transport failures are retryable; a pool shut down, a cancelled task or a server breaking
    /// the protocol are not. Check ``mayHaveBeenProcessed`` before retrying non-idempotent requests.
    public var isRetryable: Bool {
        switch self.code {
        case .deadlineExceeded, .connectFailed, .goAway, .streamReset, .connectionClosed, .tooManyQueued:
            true
        case .shutdown, .cancelled, .protocolError:
            false
        }
    }

    /// A human-readable explanation, including the server's GOAWAY reason when it sent one.
    public var reason: String {
        switch self.code {
        case .deadlineExceeded:
            "the request deadline passed"
        case .connectFailed(let detail):
            "could not connect: \(detail)"
        case .goAway(let detail):
            "the server is closing the connection (GOAWAY\(detail.map { ": \($0)" } ?? ""))"
        case .streamReset(let errorCode):
            "the server reset the stream (\(errorCode.name))"
        case .connectionClosed(let detail):
            "the connection closed\(detail.map { ": \($0)" } ?? "")"
        case .tooManyQueued(let limit):
            "more than \(limit) requests are waiting for a stream"
        case .shutdown:
            "the connection pool is shut down"
        case .cancelled:
            "the request was cancelled"
        case .protocolError(let detail):
            "protocol error: \(detail)"
        }
    }

    /// The kind and the reason, for logs.
    public var description: String {
        "HTTP2ClientError.\(self.kind): \(self.reason)"
    }
}

extension HTTP2ClientError {
    static func deadlineExceeded(mayHaveBeenProcessed: Bool) -> Self {
        Self(.deadlineExceeded, mayHaveBeenProcessed: mayHaveBeenProcessed)
    }

    static func connectFailed(_ detail: String) -> Self {
        Self(.connectFailed(detail), mayHaveBeenProcessed: false)
    }

    static func goAway(_ detail: String?, mayHaveBeenProcessed: Bool) -> Self {
        Self(.goAway(detail), mayHaveBeenProcessed: mayHaveBeenProcessed)
    }

    static func streamReset(_ errorCode: HTTP2ErrorCode) -> Self {
        // REFUSED_STREAM is the server's promise that it did no work (RFC 9113 §8.7).
        Self(.streamReset(errorCode), mayHaveBeenProcessed: errorCode != .refusedStream)
    }

    static func connectionClosed(_ detail: String?) -> Self {
        Self(.connectionClosed(detail), mayHaveBeenProcessed: true)
    }

    static func tooManyQueued(limit: Int) -> Self {
        Self(.tooManyQueued(limit: limit), mayHaveBeenProcessed: false)
    }

    static func shutdown(mayHaveBeenProcessed: Bool) -> Self {
        Self(.shutdown, mayHaveBeenProcessed: mayHaveBeenProcessed)
    }

    static func cancelled(mayHaveBeenProcessed: Bool) -> Self {
        Self(.cancelled, mayHaveBeenProcessed: mayHaveBeenProcessed)
    }

    static func protocolError(_ detail: String) -> Self {
        Self(.protocolError(detail), mayHaveBeenProcessed: true)
    }
}
