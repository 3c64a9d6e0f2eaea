/// What a rate limit says about one request.
public enum RateLimitDecision: Sendable, Equatable {
    /// Within the limit: a token was taken.
    case admitted
    /// Over the limit: nothing was taken; a token is available in `retryAfterSeconds` (whole seconds, at least 1).
    case refused(retryAfterSeconds: Int)

    /// Whether the request may go ahead.
    public var isAdmitted: Bool { self == .admitted }
}
