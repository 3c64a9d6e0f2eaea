import Crypto
import Foundation
import HeraldAPNs
import HeraldCore
import Synchronization
import Testing

/// The ES256 provider token: format, raw signature, and reuse between 20 and 60 minutes.
@Suite struct APNsProviderTokenTests {
    let key = P256.Signing.PrivateKey()

    final class FakeClock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
        func advance(minutes: Double) { now.withLock { $0 = $0.addingTimeInterval(minutes * 60) } }
        var date: Date { now.withLock { $0 } }
    }

    @Test func tokenIsAnES256JWTWithARawSignature() async throws {
        let source = try await APNsProviderToken(keyPEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456")
        let token = try await source.current()
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let headerBytes = try #require(Base64URL.decode(parts[0]))
        let header = try #require(try JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "KEY1234567")
        let claimBytes = try #require(Base64URL.decode(parts[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any])
        #expect(claims["iss"] as? String == "TEAM123456")
        let iat = try #require(claims["iat"] as? Int)
        #expect(abs(iat - Int(Date().timeIntervalSince1970)) < 300)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64, "raw R‖S, not DER")
        let verified = key.publicKey.isValidSignature(
            try P256.Signing.ECDSASignature(rawRepresentation: signature), for: Data("\(parts[0]).\(parts[1])".utf8))
        #expect(verified)
    }

    @Test func tokenIsReusedUntilFiftyMinutesAndNotRenewedTooSoon() async throws {
        let clock = FakeClock()
        let source = try await APNsProviderToken(keyPEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456", now: { clock.date })
        let first = try await source.current()
        clock.advance(minutes: 49)
        #expect(try await source.current() == first)
        clock.advance(minutes: 2)
        #expect(try await source.current() != first)
    }

    @Test func rejectionRenewsOnlyAfterTwentyMinutes() async throws {
        let clock = FakeClock()
        let source = try await APNsProviderToken(keyPEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456", now: { clock.date })
        let first = try await source.current()
        clock.advance(minutes: 5)
        #expect(try await source.refreshAfterRejection() == false)
        #expect(try await source.current() == first)
        clock.advance(minutes: 16)
        #expect(try await source.refreshAfterRejection() == true)
        #expect(try await source.current() != first)
    }

    /// Requests that need a token at the same moment (a restart with a backlog, a burst on new
    /// connections) share one mint: ES256 signatures differ even for one `iat`, so each extra mint
    /// would be one more token update for APNs, which answers `TooManyProviderTokenUpdates` beyond
    /// a couple within 20 minutes.
    @Test func concurrentFirstRequestsShareOneToken() async throws {
        let source = try await APNsProviderToken(keyPEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456")
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<64 { group.addTask { try await source.authorization() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(source.cachedAuthorization() == tokens.first)
    }
}
