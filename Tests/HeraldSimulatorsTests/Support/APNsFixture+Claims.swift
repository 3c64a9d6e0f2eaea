import JWTKit

extension APNsFixture {
    /// The claims of a provider token.
    struct Claims: JWTPayload {
        let iss: String
        let iat: Int64
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
