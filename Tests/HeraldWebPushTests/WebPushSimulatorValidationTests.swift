import Foundation
import HeraldCore
import HeraldSimulators
import HeraldWebPush
import Testing

/// The simulator refuses what a real push service refuses (providers.md §3.6), with the real statuses.
@Suite struct WebPushSimulatorValidationTests {
    /// Headers and body of a valid push to `subscription`, signed by `fixture.key`.
    func validRequest(_ fixture: WebPushFixture, to subscription: WebPushSimulator.Subscription, plaintext: String = "hello")
        async throws -> (headers: [(String, String)], body: [UInt8])
    {
        let cache = try await VAPIDTokenCache(key: fixture.key, subject: "mailto:test@example.com")
        let origin = try #require(fixture.simulator.origin)
        let target = try #require(WebPushSubscription(endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth))
        let body = try WebPushEncryption.encrypt(Array(plaintext.utf8), for: target)
        let headers = [
            ("TTL", "60"), ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"),
            ("Authorization", try await cache.authorization(forOrigin: origin)),
        ]
        return (headers, body)
    }

    func replacing(_ headers: [(String, String)], _ name: String, with value: String?) -> [(String, String)] {
        var result = headers.filter { $0.0 != name }
        if let value { result.append((name, value)) }
        return result
    }

    @Test func validPushGets201WithLocation() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            let (headers, body) = try await validRequest(fixture, to: subscription)
            let answer = try await fixture.post(subscription.endpoint, headers: headers + [("Urgency", "very-low")], body: body)
            #expect(answer.status == 201)
            let location = answer.headers.first { $0.0.lowercased() == "location" }?.1
            #expect(location?.hasPrefix("/m/") == true)
            #expect(fixture.simulator.messages(for: subscription) == ["hello"])
            #expect(fixture.simulator.accepted().first?.urgency == "very-low")
        }
    }

    @Test func requestErrorsGet400() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            let (headers, body) = try await validRequest(fixture, to: subscription)
            let cases: [(String, [(String, String)], [UInt8])] = [
                ("missing TTL", replacing(headers, "TTL", with: nil), body),
                ("negative TTL", replacing(headers, "TTL", with: "-1"), body),
                ("text TTL", replacing(headers, "TTL", with: "soon"), body),
                ("unknown urgency", headers + [("Urgency", "urgent")], body),
                ("two urgencies", headers + [("Urgency", "low"), ("Urgency", "high")], body),
                ("long topic", headers + [("Topic", String(repeating: "t", count: 33))], body),
                ("topic outside base64url", headers + [("Topic", "a.b")], body),
                ("old aesgcm coding", replacing(headers, "Content-Encoding", with: "aesgcm"), body),
                ("no content coding", replacing(headers, "Content-Encoding", with: nil), body),
                ("not encrypted", headers, Array(String(repeating: "plain text ", count: 20).utf8)),
                ("flipped byte", headers, body.enumerated().map { $0.offset == body.count - 3 ? $0.element ^ 1 : $0.element }),
            ]
            for (name, caseHeaders, caseBody) in cases {
                let answer = try await fixture.post(subscription.endpoint, headers: caseHeaders, body: caseBody)
                #expect(answer.status == 400, "\(name)")
                #expect(answer.body.contains(#""errno":"#), "\(name)")
            }
            #expect(fixture.simulator.acceptedCount == 0)
            #expect(fixture.simulator.rejections().count == cases.count)
        }
    }

    @Test func vapidIsRequiredAndChecked() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            let (headers, body) = try await validRequest(fixture, to: subscription)
            let authorization = try #require(headers.first { $0.0 == "Authorization" }?.1)
            let (token, key) = try #require(vapidParameters(authorization))
            let otherKey = VAPIDKey().publicKeyBase64URL

            let missing = try await fixture.post(subscription.endpoint, headers: replacing(headers, "Authorization", with: nil), body: body)
            let obsolete = try await fixture.post(
                subscription.endpoint, headers: replacing(headers, "Authorization", with: "WebPush \(token)"), body: body)
            let wrongKey = try await fixture.post(
                subscription.endpoint, headers: replacing(headers, "Authorization", with: "vapid t=\(token), k=\(otherKey)"), body: body)
            let noSpace = try await fixture.post(
                subscription.endpoint, headers: replacing(headers, "Authorization", with: "vapid t=\(token),k=\(key)"), body: body)

            #expect(missing.status == 401)
            #expect(obsolete.status == 401)
            #expect(wrongKey.status == 403)
            #expect(noSpace.status == 201)
        }
    }

    @Test func bodyOver4096BytesGets413() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            let (headers, _) = try await validRequest(fixture, to: subscription)
            let answer = try await fixture.post(subscription.endpoint, headers: headers, body: [UInt8](repeating: 7, count: 4097))
            #expect(answer.status == 413)
        }
    }

    @Test func shortenedTTLIsAnnounced() async throws {
        try await WebPushFixture.with(configure: { $0.maximumTTL = 100 }) { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            let (headers, body) = try await validRequest(fixture, to: subscription)
            let answer = try await fixture.post(subscription.endpoint, headers: replacing(headers, "TTL", with: "99999999999"), body: body)
            #expect(answer.status == 201)
            #expect(answer.headers.first { $0.0.lowercased() == "ttl" }?.1 == "100")
            #expect(fixture.simulator.accepted().first?.ttl == 1 << 31)
        }
    }

    @Test func subscriptionsAndMessagesAreServedForManualUse() async throws {
        try await WebPushFixture.with { fixture in
            let origin = try #require(fixture.simulator.origin)
            let created = try await fixture.post("\(origin)/subscriptions", headers: [], body: [])
            #expect(created.status == 201)
            let subscription = try #require(WebPushSubscription(storedToken: created.body))
            let normalized = try #require(fixture.provider.normalizeToken(TokenInput(token: .string(created.body))))
            let target = DeliveryTarget(subscriberID: .random(), token: normalized.token)
            #expect(await fixture.provider.deliver(sampleEvent(), variant: MessageVariant(), to: target)?.outcome == .delivered)

            let id = try #require(subscription.endpoint.split(separator: "/").last)
            let messages = try await fixture.get("\(origin)/subscriptions/\(id)/messages")
            #expect(messages.status == 200)
            #expect(messages.body == #"["{\"event\":\"sport\",\"title\":\"Goal\",\"message\":\"1-0\",\"data\":{\"match\":\"42\"}}"]"#)
        }
    }
}
