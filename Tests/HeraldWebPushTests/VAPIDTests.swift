import Crypto
import Foundation
import HeraldCore
import HeraldWebPush
import Testing

/// RFC 8292 VAPID: the key pair, and the signed, cached `Authorization` header.
@Suite struct VAPIDTests {
    @Test func rfc8292ExampleTokenVerifiesWithItsKey() throws {
        // Checks the inspection helper the other tests rely on against the RFC's own token.
        let token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJodHRwczovL3B1c2guZXhhbXBsZS5uZXQiLCJleHAiOjE0NTM1MjM3NjgsInN1YiI6Im1haWx0bzpwdXNoQGV4YW1wbGUuY29tIn0.i3CYb7t4xfxCDquptFOepC9GAu_HLGkMlMuCGSK2rpiUfnK9ojFwDXb1JrErtmysazNjjvW2L9OkSSHzvoD1oA"
        let key = try #require(Base64URL.decode("BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"))
        let jwt = try #require(InspectedJWT(token))
        #expect(jwt.verifies(withKey: key))
        #expect(jwt.string("aud") == "https://push.example.net")
        #expect(jwt.integer("exp") == 1_453_523_768)
        #expect(!jwt.verifies(withKey: VAPIDKey().publicKeyBytes))
    }

    @Test func authorizationHeaderCarriesASignedTokenAndTheKey() async throws {
        let clock = TestClock()
        let key = VAPIDKey()
        let cache = try await VAPIDTokenCache(key: key, subject: "mailto:ops@example.com", now: { clock.now })

        let header = try await cache.authorization(forOrigin: "https://fcm.googleapis.com")

        let (token, k) = try #require(vapidParameters(header))
        #expect(header == "vapid t=\(token), k=\(k)")
        #expect(k == key.publicKeyBase64URL)
        #expect(k.count == 87)
        let jwt = try #require(InspectedJWT(token))
        #expect(jwt.verifies(withKey: key.publicKeyBytes))
        #expect(jwt.header["alg"] == .string("ES256"))
        #expect(jwt.header["typ"] == .string("JWT"))
        #expect(jwt.string("aud") == "https://fcm.googleapis.com")
        #expect(jwt.string("sub") == "mailto:ops@example.com")
        let expiry = try #require(jwt.integer("exp"))
        let now = Int64(clock.now.timeIntervalSince1970)
        #expect(expiry == now + 12 * 3600)
        #expect(expiry - now <= 24 * 3600)
    }

    @Test func tokensAreCachedPerOriginUntilAnHourBeforeExpiry() async throws {
        let clock = TestClock()
        let cache = try await VAPIDTokenCache(key: VAPIDKey(), subject: "https://example.com/contact", now: { clock.now })

        let first = try await cache.authorization(forOrigin: "https://updates.push.services.mozilla.com")
        let other = try await cache.authorization(forOrigin: "https://web.push.apple.com")
        clock.advance(by: 10 * 3600)
        let again = try await cache.authorization(forOrigin: "https://updates.push.services.mozilla.com")
        clock.advance(by: 3600)
        let renewed = try await cache.authorization(forOrigin: "https://updates.push.services.mozilla.com")

        #expect(again == first)
        #expect(other != first)
        #expect(InspectedJWT(vapidParameters(other)!.token)?.string("aud") == "https://web.push.apple.com")
        #expect(renewed != first)
        let firstExpiry = try #require(InspectedJWT(vapidParameters(first)!.token)?.integer("exp"))
        let renewedExpiry = try #require(InspectedJWT(vapidParameters(renewed)!.token)?.integer("exp"))
        #expect(renewedExpiry == firstExpiry + 11 * 3600)
    }

    @Test func keyRoundTripsThroughPEMAndRawScalar() throws {
        let key = VAPIDKey()
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try VAPIDKey(text: key.pemRepresentation).publicKeyBase64URL == key.publicKeyBase64URL)
        #expect(try VAPIDKey(text: key.privateKeyBase64URL).publicKeyBase64URL == key.publicKeyBase64URL)
        #expect(key.publicKeyBytes.count == 65)
        #expect(key.publicKeyBytes[0] == 0x04)
        #expect(key.privateKeyBase64URL.count == 43)

        // SEC 1 ("EC PRIVATE KEY"), as openssl ecparam writes it, is read too.
        let sec1 = try #require(Self.sec1PEM(of: key))
        #expect(try VAPIDKey(text: sec1).publicKeyBase64URL == key.publicKeyBase64URL)
    }

    @Test func keyFileIsWrittenForTheOwnerOnlyAndReadBack() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = VAPIDKey()
        try key.write(toFile: path)
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(try VAPIDKey(contentsOfFile: path).publicKeyBase64URL == key.publicKeyBase64URL)
    }

    @Test(arguments: ["", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", String(repeating: "A", count: 42)])
    func garbageIsNotAKey(text: String) {
        #expect(throws: VAPIDKeyError.self) { try VAPIDKey(text: text) }
    }

    @Test func missingFileIsReported() {
        let error = #expect(throws: VAPIDKeyError.self) { try VAPIDKey(contentsOfFile: "/nonexistent/vapid.pem") }
        #expect(error?.description.contains("/nonexistent/vapid.pem") == true)
    }

    /// The key in SEC 1 PEM: `SEQUENCE { 1, OCTET STRING d, [0] prime256v1, [1] BIT STRING Q }`.
    static func sec1PEM(of key: VAPIDKey) -> String? {
        let scalar = Array(key.privateKey.rawRepresentation)
        let point = key.publicKeyBytes
        let oid: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        var body: [UInt8] = [0x02, 0x01, 0x01, 0x04, 0x20] + scalar
        body += [0xA0, UInt8(oid.count)] + oid
        body += [0xA1, 0x44, 0x03, 0x42, 0x00] + point
        let der = [0x30, UInt8(body.count)] + body
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN EC PRIVATE KEY-----\n\(base64)\n-----END EC PRIVATE KEY-----"
    }
}
