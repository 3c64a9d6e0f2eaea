extension PublishedEvent {
    /// How long a push service may keep a notification, seen at one moment.
    public enum TimeToLive: Sendable, Equatable {
        /// No limit was given.
        case unlimited
        /// Its `expiration` has passed: it must not be sent.
        case expired
        /// Seconds from now: until `expiration` when there is one, else `ttl`.
        case seconds(Int64)
    }

    /// Its time to live at `now` (Unix seconds), for the services that take a lifetime rather
    /// than an expiry (FCM's and Push Kit's `ttl`).
    public func timeToLive(at now: Int64) -> TimeToLive {
        if let expiration { return expiration > now ? .seconds(expiration - now) : .expired }
        if let ttl { return .seconds(Int64(ttl)) }
        return .unlimited
    }
}
