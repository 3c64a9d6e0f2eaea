import HeraldCore

/// Why no access token could be had from an OAuth token endpoint (FCM's, Push Kit's), and the
/// delivery outcome that follows: the endpoint's refusals are configuration failures, its
/// outages and transport errors transient.
public struct OAuthTokenError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Equatable {
        /// The request did not get an HTTP answer.
        case transport(String)
        /// The endpoint answered with an error status and, usually, an OAuth error body.
        case rejected(status: Int, error: String?, errorDescription: String?, retryAfter: String?)
        /// A 2xx answer without a usable `access_token` and `expires_in`.
        case malformedResponse(status: Int)
        /// What the request carries could not be made (FCM's signed assertion).
        case signing(String)
    }

    /// What went wrong.
    public let code: Code

    /// Creates an error.
    public init(_ code: Code) {
        self.code = code
    }

    /// The HTTP status of the endpoint's answer, when there was one.
    public var status: Int? {
        switch code {
        case .rejected(let status, _, _, _), .malformedResponse(let status): status
        case .transport, .signing: nil
        }
    }

    /// The OAuth `error` (`invalid_grant`, Huawei's numbers such as `1101`), when the endpoint sent one.
    public var oauthError: String? {
        if case .rejected(_, let error, _, _) = code { return error }
        return nil
    }

    /// The outcome of a send that could not get an access token.
    public var deliveryOutcome: DeliveryOutcome {
        switch code {
        case .transport:
            DeliveryOutcome(.transient, reason: description)
        case .rejected(let status, _, _, let retryAfter) where status == 429 || status >= 500:
            DeliveryOutcome(.transient, reason: description, status: status, retryAfter: RetryAfter.parse(retryAfter))
        case .rejected(let status, _, _, _), .malformedResponse(let status):
            // invalid_grant, invalid_client, a wrong secret or token endpoint: the configuration is wrong.
            DeliveryOutcome(.configurationFailure, reason: description, status: status)
        case .signing:
            DeliveryOutcome(.configurationFailure, reason: description)
        }
    }

    public var description: String {
        switch code {
        case .transport(let reason):
            "OAuth token request failed: \(reason)"
        case .rejected(let status, let error, let errorDescription, _):
            "OAuth token endpoint answered \(status)" + (error.map { " \($0)" } ?? "") + (errorDescription.map { ": \($0)" } ?? "")
        case .malformedResponse(let status):
            "OAuth token endpoint answered \(status) without an access_token"
        case .signing(let reason):
            "cannot sign the OAuth assertion: \(reason)"
        }
    }
}
