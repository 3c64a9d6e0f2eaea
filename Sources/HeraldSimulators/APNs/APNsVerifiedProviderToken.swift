/// What a provider token whose structure, algorithm, key and signature are sound says.
struct APNsVerifiedProviderToken: Sendable, Hashable {
    let keyID: String
    let teamID: String
    let issuedAt: Int64
}
