/// An access token the simulator's token endpoint issued.
struct FCMAccessTokenGrant: Sendable {
    /// The service account it was issued to.
    let clientEmail: String
    /// The project that account may send to.
    let projectID: String
    /// Seconds since 1970 after which the token is refused.
    var expiresAt: Double
}
