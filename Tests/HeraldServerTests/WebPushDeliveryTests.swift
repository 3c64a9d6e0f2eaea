import Foundation
import HeraldSimulators
import HeraldTestSupport
import HeraldWebPush
import Logging
import Testing

/// Web Push end to end: a browser-like subscription registers, an event is published, the simulated push
/// service decrypts exactly what a service worker would receive.
@Suite struct WebPushDeliveryTests {
    /// A running Web Push simulator and a Herald whose `webpush` provider trusts it.
    func withWebPush(_ body: (TestHerald, WebPushSimulator, VAPIDKey) async throws -> Void) async throws {
        let delivery = """
            delivery:
              retry_delay: 0.01
              max_retry_delay: 0.05
            """
        try await withWebPushHerald(extra: delivery, body)
    }

    @Test func subscriptionsOfBothFormsReceiveTheDecryptedEvent() async throws {
        try await withWebPush { herald, simulator, key in
            let served = try await herald.request(.GET, "/webpush/vapid-public-key")
            #expect(served.status == 200)
            #expect(served.body == #"{"proto":"webpush","publicKey":"\#(key.publicKeyBase64URL)"}"#)

            let browser = try simulator.makeSubscription(applicationServerKey: key.publicKeyBase64URL)
            let whole = try await herald.request(.POST, "/subscribers", json: #"{"proto":"webpush","token":\#(browser.json),"lang":"fr"}"#)
            #expect(whole.status == 201, "\(whole.body)")
            let other = try simulator.makeSubscription()
            let separate = try await herald.request(
                .POST, "/subscribers",
                form: "proto=webpush&token=\(Fixtures.formEncoded(other.endpoint))&p256dh=\(other.p256dh)&auth=\(other.auth)")
            #expect(separate.status == 201, "\(separate.body)")
            let again = try await herald.request(.POST, "/subscribers", json: #"{"proto":"webpush","token":\#(browser.json)}"#)
            #expect(again.status == 200, "the endpoint is the identity")
            let bad = try await herald.request(.POST, "/subscribers", form: "proto=webpush&token=\(Fixtures.formEncoded(other.endpoint))&p256dh=xx&auth=yy")
            #expect(bad.status == 400)

            #expect(try await herald.request(.POST, "/event/broadcast", form: "title=Hi&title.fr=Salut&msg=Goal&data.score=2-1&priority=high").status == 204)
            try await eventually { simulator.acceptedCount == 2 }
            let byEndpoint = Dictionary(uniqueKeysWithValues: simulator.accepted().map { ($0.endpoint, $0) })
            let french = try #require(byEndpoint[browser.endpoint])
            #expect(french.text == #"{"event":"broadcast","title":"Salut","message":"Goal","data":{"score":"2-1"}}"#)
            #expect(french.urgency == "high")
            #expect(french.vapidKey == key.publicKeyBase64URL)
            let english = try #require(byEndpoint[other.endpoint])
            #expect(english.text == #"{"event":"broadcast","title":"Hi","message":"Goal","data":{"score":"2-1"}}"#)
        }
    }

    @Test func expiredSubscriptionIsUnregisteredAndThrottlingIsRetried() async throws {
        try await withWebPush { herald, simulator, _ in
            let gone = try simulator.makeSubscription()
            let busy = try simulator.makeSubscription()
            let goneID = try await register(herald, gone)
            let busyID = try await register(herald, busy)
            simulator.expire(gone)
            simulator.injectNext([.tooManyRequests(retryAfter: 0), .internalServerError])
            #expect(try await herald.request(.POST, "/event/unicast:\(busyID)", form: "msg=later").status == 204)
            try await eventually { simulator.acceptedCount == 1 }
            #expect(simulator.accepted().first?.endpoint == busy.endpoint)

            #expect(try await herald.request(.POST, "/event/unicast:\(goneID)", form: "msg=never").status == 204)
            try await eventually { try await herald.request(.GET, "/subscriber/\(goneID)").status == 404 }
            let feedback = try #require(try Fixtures.json(try await herald.request(.GET, "/feedback").body) as? [String: Any])
            let entries = try #require(feedback["entries"] as? [[String: Any]])
            #expect(entries.contains { $0["subscriber"] as? String == goneID && $0["action"] as? String == "unregistered" && $0["status"] as? Int == 410 })
        }
    }

    private func register(_ herald: TestHerald, _ subscription: WebPushSimulator.Subscription) async throws -> String {
        let response = try await herald.request(.POST, "/subscribers", json: #"{"proto":"webpush","token":\#(subscription.json)}"#)
        #expect(response.status == 201, "\(response.body)")
        return try #require((try Fixtures.json(response.body) as? [String: Any])?["id"] as? String)
    }
}
