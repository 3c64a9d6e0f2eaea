import HeraldCore

/// Why no WNS access token could be obtained.
public struct WNSAccessTokenError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        /// The token endpoint refused the credentials (`400 invalid_client`, ...).
        case rejected(status: Int, error: String?)
        /// The endpoint answered with a server error or could not be reached.
        case unavailable(reason: String, status: Int?, retryAfter: Duration?)
        /// A success answer without a usable token.
        case invalidResponse(String)
    }

    private let kind: Kind

    /// The token endpoint refused the request with `status` and the OAuth `error` code.
    static func rejected(status: Int, error: String?) -> Self { Self(kind: .rejected(status: status, error: error)) }
    /// The token endpoint failed or could not be reached.
    static func unavailable(reason: String, status: Int? = nil, retryAfter: Duration? = nil) -> Self {
        Self(kind: .unavailable(reason: reason, status: status, retryAfter: retryAfter))
    }
    /// The token endpoint answered 200 with something that is not a token.
    static func invalidResponse(_ detail: String) -> Self { Self(kind: .invalidResponse(detail)) }

    /// The delivery outcome for a send that needed the token: refused credentials are Herald's configuration,
    /// an unreachable endpoint is transient.
    public var outcome: DeliveryOutcome {
        switch kind {
        case .rejected(let status, _):
            return DeliveryOutcome(.configurationFailure, reason: description, status: status)
        case .unavailable(_, let status, let retryAfter):
            return DeliveryOutcome(.transient, reason: description, status: status, retryAfter: retryAfter)
        case .invalidResponse:
            return DeliveryOutcome(.transient, reason: description)
        }
    }

    public var description: String {
        switch kind {
        case .rejected(let status, let error): "access token refused: HTTP \(status)" + (error.map { " \($0)" } ?? "")
        case .unavailable(let reason, _, _): "access token unavailable: \(reason)"
        case .invalidResponse(let detail): "access token response unusable: \(detail)"
        }
    }
}
