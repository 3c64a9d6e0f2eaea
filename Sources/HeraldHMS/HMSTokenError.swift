/// Why no access token could be had from Huawei's OAuth token endpoint.
///
/// ``HMSAnswerTable`` turns it into a delivery outcome: the endpoint's refusals are configuration failures,
/// its outages and transport errors are transient.
public struct HMSTokenError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable, Equatable {
        /// The request did not get an HTTP answer.
        case transport(String)
        /// The endpoint answered with an error status and, usually, an OAuth error body.
        case rejected(status: Int, error: String?, errorDescription: String?, retryAfter: String?)
        /// A 2xx answer without a usable `access_token` and `expires_in`.
        case malformedResponse(status: Int)
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    /// The HTTP status of the endpoint's answer, when there was one.
    public var status: Int? {
        switch code {
        case .rejected(let status, _, _, _), .malformedResponse(let status): status
        case .transport: nil
        }
    }

    /// The OAuth `error` (Huawei's are numbers such as `1101`), when the endpoint sent one.
    public var oauthError: String? {
        if case .rejected(_, let error, _, _) = code { return error }
        return nil
    }

    public var description: String {
        switch code {
        case .transport(let reason):
            "HMS OAuth token request failed: \(reason)"
        case .rejected(let status, let error, let errorDescription, _):
            "HMS OAuth token endpoint answered \(status)" + (error.map { " error \($0)" } ?? "") + (errorDescription.map { ": \($0)" } ?? "")
        case .malformedResponse(let status):
            "HMS OAuth token endpoint answered \(status) without an access_token"
        }
    }
}
