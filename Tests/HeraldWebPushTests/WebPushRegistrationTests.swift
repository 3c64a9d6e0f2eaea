import HeraldCore
import HeraldSimulators
import HeraldWebPush
import Testing

/// Token validation at registration (pushd-api.md §9): both forms, the canonical stored token, the identity.
@Suite struct WebPushRegistrationTests {
    static let endpoint = "https://fcm.googleapis.com/fcm/send/abc:DEF-123"
    let keys = WebPushUserAgentKeys()

    var canonical: String {
        #"{"endpoint":"\#(Self.endpoint)","keys":{"p256dh":"\#(keys.p256dh)","auth":"\#(keys.auth)"}}"#
    }

    func normalize(token: BodyValue?, body: [(String, BodyValue)] = []) -> WebPushSubscription? {
        var members = body.map { (key: $0.0, value: $0.1) }
        if let token { members.insert((key: "token", value: token), at: 0) }
        return WebPushSubscription(registration: TokenInput(token: token, body: .object(members)))
    }

    @Test func endpointWithSeparateKeyFields() throws {
        let subscription = try #require(normalize(
            token: .string(Self.endpoint), body: [("proto", .string("webpush")), ("p256dh", .string(keys.p256dh)), ("auth", .string(keys.auth))]))
        #expect(subscription.canonicalJSON == canonical)
        #expect(subscription.endpoint == Self.endpoint)
    }

    @Test func endpointWithAKeysObject() throws {
        let keysObject = BodyValue.object([(key: "p256dh", value: .string(keys.p256dh)), (key: "auth", value: .string(keys.auth))])
        #expect(normalize(token: .string(Self.endpoint), body: [("keys", keysObject)])?.canonicalJSON == canonical)
    }

    @Test func wholeSubscriptionAsJSONText() throws {
        let browser = #"{"endpoint":"\#(Self.endpoint)","expirationTime":null,"keys":{"p256dh":"\#(keys.p256dh)","auth":"\#(keys.auth)"}}"#
        #expect(normalize(token: .string(browser))?.canonicalJSON == canonical)
        // Whitespace around, keys in another order, padding: still the same subscription.
        let reordered = #"  {"keys":{"auth":"\#(keys.auth)==","p256dh":"\#(keys.p256dh)="},"expirationTime":1700000000000,"endpoint":"\#(Self.endpoint)"} "#
        #expect(normalize(token: .string(reordered))?.canonicalJSON == canonical)
    }

    @Test func wholeSubscriptionAsJSONObject() throws {
        let object = BodyValue.object([
            (key: "endpoint", value: .string(Self.endpoint)),
            (key: "expirationTime", value: .null),
            (key: "keys", value: .object([(key: "p256dh", value: .string(keys.p256dh)), (key: "auth", value: .string(keys.auth))])),
        ])
        #expect(normalize(token: object)?.canonicalJSON == canonical)
    }

    @Test func providerStoresCanonicalJSONWithTheEndpointAsIdentity() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            let normalized = try #require(fixture.provider.normalizeToken(TokenInput(token: .string(subscription.json))))
            #expect(normalized.identity == subscription.endpoint)
            #expect(normalized.token == #"{"endpoint":"\#(subscription.endpoint)","keys":{"p256dh":"\#(subscription.p256dh)","auth":"\#(subscription.auth)"}}"#)
            // Registering the stored form again gives the same token.
            #expect(fixture.provider.normalizeToken(TokenInput(token: .string(normalized.token))) == normalized)
        }
    }

    @Test func storedTokenParsesBack() throws {
        let subscription = try #require(WebPushSubscription(storedToken: canonical))
        #expect(subscription.p256dh == keys.p256dh)
        #expect(subscription.auth == keys.auth)
        #expect(subscription.authSecret == keys.authSecret)
    }

    @Test(arguments: [
        "http://fcm.googleapis.com/fcm/send/abc",  // not https
        "fcm.googleapis.com/fcm/send/abc",  // not absolute
        "https:///nohost",
        "https://user:pass@push.example.net/x",  // credentials
        "https://push.example.net/a b",  // whitespace
        "",
    ])
    func invalidEndpointsAreRejected(endpoint: String) {
        #expect(WebPushSubscription(endpoint: endpoint, p256dh: keys.p256dh, auth: keys.auth) == nil)
    }

    @Test func invalidKeysAreRejected() throws {
        let point = try #require(Base64URL.decode(keys.p256dh))
        // Not on the curve: y changed.
        var offCurve = point
        offCurve[64] ^= 0x01
        // Compressed form (0x02/0x03 ‖ x), which browsers never send.
        let compressed = [UInt8(0x02)] + point[1...32]
        // 0x04 prefix on 64 bytes of x only.
        let short = Array(point[..<64])
        for p256dh in [Base64URL.encode(offCurve), Base64URL.encode(compressed), Base64URL.encode(short), "not base64!", ""] {
            #expect(WebPushSubscription(endpoint: Self.endpoint, p256dh: p256dh, auth: keys.auth) == nil)
        }
        for auth in [Base64URL.encode([UInt8](repeating: 1, count: 15)), Base64URL.encode([UInt8](repeating: 1, count: 17)), "", "*"] {
            #expect(WebPushSubscription(endpoint: Self.endpoint, p256dh: keys.p256dh, auth: auth) == nil)
        }
    }

    @Test func incompleteRegistrationsAreRejected() {
        #expect(normalize(token: .string(Self.endpoint), body: [("p256dh", .string(keys.p256dh))]) == nil)
        #expect(normalize(token: .string(Self.endpoint), body: [("auth", .string(keys.auth))]) == nil)
        #expect(normalize(token: nil, body: [("p256dh", .string(keys.p256dh)), ("auth", .string(keys.auth))]) == nil)
        #expect(normalize(token: .string(#"{"endpoint":"\#(Self.endpoint)"}"#)) == nil)
        #expect(normalize(token: .string(#"{"endpoint":"\#(Self.endpoint)","keys":"#)) == nil)
        #expect(normalize(token: .number("5")) == nil)
        #expect(normalize(token: .array([])) == nil)
        let numericKeys = BodyValue.object([
            (key: "endpoint", value: .string(Self.endpoint)),
            (key: "keys", value: .object([(key: "p256dh", value: .number("1")), (key: "auth", value: .string(keys.auth))])),
        ])
        #expect(normalize(token: numericKeys) == nil)
    }

    @Test func originIsSchemeHostAndNonDefaultPort() throws {
        func origin(_ endpoint: String) -> String? {
            WebPushSubscription(endpoint: endpoint, p256dh: keys.p256dh, auth: keys.auth)?.origin
        }
        #expect(origin("https://fcm.googleapis.com/fcm/send/abc") == "https://fcm.googleapis.com")
        #expect(origin("https://Web.Push.Apple.com:443/QGx") == "https://web.push.apple.com")
        #expect(origin("https://127.0.0.1:8443/push/x") == "https://127.0.0.1:8443")
        #expect(origin("https://[::1]:8443/push/x") == "https://[::1]:8443")
    }
}
