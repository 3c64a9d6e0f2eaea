import AsyncHTTPClient
import HeraldCore
import NIOSSL

/// Short, secret-free reasons for outbound transport failures, recorded as a delivery outcome's `reason`.
///
/// Every AsyncHTTPClient-based provider (webhooks, Web Push, WNS, MPNS, legacy GCM) reports through this one
/// table, so the feedback log and dead letters use the same words whatever the kind.
public enum OutboundErrorReason {
    /// The outcome of a request that got no answer: a destination the egress guard refused is a permanent
    /// failure counted against its subscriber (`DestinationNotAllowed`); anything else is transient.
    public static func outcome(for error: any Error) -> DeliveryOutcome {
        if EgressGuard.isRefusal(error) { return DeliveryOutcome(.subscriberFailure, reason: "DestinationNotAllowed") }
        return DeliveryOutcome(.transient, reason: describe(error))
    }

    /// A reason for `error` that never includes the URL: a webhook URL, a Web Push endpoint or a WNS channel
    /// is a subscriber's token, and may carry secrets.
    public static func describe(_ error: any Error) -> String {
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
