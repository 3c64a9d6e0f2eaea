import Crypto
import Foundation
import HeraldSimulators
import Testing

/// Provider tokens (§1.5) and client certificates (§1.6).
@Suite(.timeLimit(.minutes(1)))
struct APNsAuthenticationTests {
    private func bearer(_ fixture: APNsFixture, _ token: String) -> [(String, String)] {
        fixture.headers(setting: "authorization", to: "bearer \(token)")
    }

    private func expectError(
        _ reply: APNsFixture.Reply, _ status: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, sourceLocation: sourceLocation)
        #expect(reply.reason == reason, "body: \(reply.body)", sourceLocation: sourceLocation)
    }

    @Test func missingAuthorizationIsMissingProviderToken() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(
                try await fixture.push(headers: fixture.headers(setting: "authorization", to: nil)), 403,
                "MissingProviderToken")
        }
    }

    @Test func bearerMustBeLowercaseWithOneSpace() async throws {
        try await APNsFixture.with { fixture in
            let capitalized = fixture.headers(setting: "authorization", to: "Bearer \(fixture.providerToken)")
            self.expectError(try await fixture.push(headers: capitalized), 403, "InvalidProviderToken")
        }
    }

    @Test func expiredToken() async throws {
        try await APNsFixture.with { fixture in
            let old = try await APNsFixture.mintToken(
                key: fixture.signingKey,
                keyID: APNsFixture.keyID,
                issuedAt: Int64(Date().timeIntervalSince1970) - 3700
            )
            self.expectError(try await fixture.push(headers: self.bearer(fixture, old)), 403, "ExpiredProviderToken")
        }
    }

    @Test func issuedInTheFuture() async throws {
        try await APNsFixture.with { fixture in
            let future = try await APNsFixture.mintToken(
                key: fixture.signingKey,
                keyID: APNsFixture.keyID,
                issuedAt: Int64(Date().timeIntervalSince1970) + 3600
            )
            self.expectError(try await fixture.push(headers: self.bearer(fixture, future)), 403, "InvalidProviderToken")
        }
    }

    @Test func derSignatureIsRejectedWhileRawSignatureIsAccepted() async throws {
        try await APNsFixture.with { fixture in
            let der = try APNsFixture.handMadeToken(
                key: fixture.signingKey, keyID: APNsFixture.keyID, derSignature: true)
            self.expectError(try await fixture.push(headers: self.bearer(fixture, der)), 403, "InvalidProviderToken")
            let raw = try APNsFixture.handMadeToken(
                key: fixture.signingKey, keyID: APNsFixture.keyID, derSignature: false)
            #expect(try await fixture.push(headers: self.bearer(fixture, raw)).status == 200)
        }
    }

    @Test func unknownKeyID() async throws {
        try await APNsFixture.with { fixture in
            let stranger = try await APNsFixture.mintToken(key: P256.Signing.PrivateKey(), keyID: "UNKNOWN123")
            self.expectError(
                try await fixture.push(headers: self.bearer(fixture, stranger)), 403, "InvalidProviderToken")
        }
    }

    @Test func signatureByAnotherKeyUnderAKnownKeyID() async throws {
        try await APNsFixture.with { fixture in
            let forged = try await APNsFixture.mintToken(key: P256.Signing.PrivateKey(), keyID: APNsFixture.keyID)
            self.expectError(try await fixture.push(headers: self.bearer(fixture, forged)), 403, "InvalidProviderToken")
        }
    }

    @Test func anotherTeam() async throws {
        try await APNsFixture.with { fixture in
            let token = try await APNsFixture.mintToken(
                key: fixture.signingKey, keyID: APNsFixture.keyID, teamID: "OTHER12345")
            self.expectError(try await fixture.push(headers: self.bearer(fixture, token)), 403, "InvalidProviderToken")
        }
    }

    @Test func garbageToken() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(
                try await fixture.push(headers: self.bearer(fixture, "not.a.jwt")), 403, "InvalidProviderToken")
        }
    }

    @Test func unrelatedKeyOnTheSameConnection() async throws {
        try await APNsFixture.with { fixture in
            #expect(try await fixture.push().status == 200)
            let other = try await APNsFixture.mintToken(key: fixture.otherSigningKey, keyID: APNsFixture.otherKeyID)
            self.expectError(try await fixture.push(headers: self.bearer(fixture, other)), 403, "UnrelatedKeyIdInToken")
            #expect(fixture.simulator.statistics().connections == 1)
        }
    }

    @Test func tooManyProviderTokenUpdates() async throws {
        try await APNsFixture.with { fixture in
            let second = try await APNsFixture.mintToken(key: fixture.signingKey, keyID: APNsFixture.keyID)
            let third = try await APNsFixture.mintToken(key: fixture.signingKey, keyID: APNsFixture.keyID)
            #expect(Set([fixture.providerToken, second, third]).count == 3)
            #expect(try await fixture.push().status == 200)
            #expect(try await fixture.push(headers: self.bearer(fixture, second)).status == 200)
            self.expectError(
                try await fixture.push(headers: self.bearer(fixture, third)), 429, "TooManyProviderTokenUpdates")
            // The tokens already in use keep working.
            #expect(try await fixture.push().status == 200)
        }
    }

    @Test func tokenUpdateLimitCanBeLifted() async throws {
        try await APNsFixture.with(configure: { $0.maxProviderTokensPerWindow = nil }) { fixture in
            for _ in 0..<4 {
                let token = try await APNsFixture.mintToken(key: fixture.signingKey, keyID: APNsFixture.keyID)
                #expect(try await fixture.push(headers: self.bearer(fixture, token)).status == 200)
            }
        }
    }

    @Test func clientCertificateAuthenticatesAndSuppliesTheTopic() async throws {
        try await APNsFixture.with(
            configure: {
                $0.clientCertificateAuthentication = true
                $0.recordPayloads = true
            },
            clientCertificateTopic: APNsFixture.bundleID
        ) { fixture in
            // No authorization and no apns-topic: the certificate's UID is the topic.
            let reply = try await fixture.push(headers: [("apns-push-type", "alert")])
            #expect(reply.status == 200)
            #expect(fixture.simulator.accepted().first?.header("apns-topic") == nil)

            let elsewhere = try await fixture.push(headers: [
                ("apns-push-type", "alert"), ("apns-topic", "com.example.other"),
            ])
            self.expectError(elsewhere, 400, "TopicDisallowed")

            // Location pushes need token authentication.
            let location = [("apns-push-type", "location"), ("apns-topic", "com.example.app.location-query")]
            self.expectError(try await fixture.push(headers: location), 400, "InvalidPushType")
        }
    }

    @Test func noCertificateAndNoTokenIsMissingProviderToken() async throws {
        try await APNsFixture.with(configure: { $0.clientCertificateAuthentication = true }) { fixture in
            let reply = try await fixture.push(headers: [
                ("apns-push-type", "alert"), ("apns-topic", APNsFixture.bundleID),
            ])
            self.expectError(reply, 403, "MissingProviderToken")
            // The same simulator still takes provider tokens on connections without a certificate.
            #expect(try await fixture.push().status == 200)
        }
    }
}
