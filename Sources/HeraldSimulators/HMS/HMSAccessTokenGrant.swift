/// An access token the simulator's token endpoint issued.
struct HMSAccessTokenGrant: Sendable {
    /// The app it was issued to, the only one it may send for.
    let appID: String
    /// Seconds since 1970 after which the token is refused (`80200003`).
    var expiresAt: Double
}
