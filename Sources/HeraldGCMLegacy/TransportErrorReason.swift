import AsyncHTTPClient
import NIOSSL

/// Short, secret-free reasons for transport failures, recorded as the outcome's `reason`.
enum TransportErrorReason {
    /// A reason for `error` that never includes the URL (a channel URI is a subscriber's token).
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout:
            return "timeout"
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return "connection closed"
        case is NIOSSLError, is BoringSSLError:
            return "TLS error"
        default:
            let text = String(describing: error)
            if text.contains("refused") || text.contains("ECONNREFUSED") { return "connection refused" }
            if text.contains("reset") { return "connection reset" }
            if text.contains("https://") || text.contains("http://") { return "transport error" }
            return text.count > 120 ? String(text.prefix(120)) : text
        }
    }
}
