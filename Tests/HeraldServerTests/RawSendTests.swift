import Foundation
import HeraldCore
import HeraldIntake
import HeraldSimulators
import HeraldTestSupport
import Testing

/// Raw-token sends (`POST /send` and the intake API the compat front-ends use): prepared payloads to
/// tokens that were never registered, through the same durable queue, retries, dead letters,
/// feedback and back-pressure as every delivery, against the APNs simulator over TLS + HTTP/2.
@Suite struct RawSendTests {
    static let fast = """
        delivery:
          retry_delay: 0.01
          max_retry_delay: 0.05
          max_attempts: 3

        """

    func withAPNs<T>(extra: String = "", _ body: (TestHerald, APNsTestBed) async throws -> T) async throws -> T {
        try await withAPNsHerald(extra: Self.fast + extra, body)
    }

    static func sendJSON(tokens: [String], payload: String = #"{"aps":{"alert":"hi"},"k":"v"}"#, headers: String = "{}") -> String {
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"proto":"apns","tokens":[\#(list)],"payload":\#(payload),"headers":\#(headers),"label":"promo"}"#
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try Fixtures.json(text) as? [String: Any])
    }

    /// The `entries` of a listing (`/feedback`, `/dead-letters`).
    static func entries(_ herald: TestHerald, _ path: String) async throws -> [[String: Any]] {
        let body = try await herald.request(.GET, path).body
        return ((try Fixtures.json(body) as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
    }

    @Test func preparedPayloadsReachRawTokensAsSent() async throws {
        try await withAPNs { herald, bed in
            let tokens = [APNsTestBed.token(1), APNsTestBed.token(2), APNsTestBed.token(1)]
            let response = try await herald.request(
                .POST, "/send",
                json: Self.sendJSON(
                    tokens: tokens, headers: #"{"apns-push-type":"background","apns-priority":"5","apns-collapse-id":"c1"}"#))
            #expect(response.status == 202, "\(response.body)")
            #expect(response.body == #"{"queued":2}"#, "one delivery per distinct token")
            try await eventually { bed.simulator.acceptedCount == 2 }
            let accepted = bed.simulator.accepted()
            #expect(Set(accepted.map(\.token)) == [APNsTestBed.token(1), APNsTestBed.token(2)])
            for request in accepted {
                #expect(request.body == #"{"aps":{"alert":"hi"},"k":"v"}"#)
                #expect(request.header("apns-push-type") == "background")
                #expect(request.header("apns-priority") == "5")
                #expect(request.header("apns-collapse-id") == "c1")
                #expect(request.header("apns-topic") == bed.topic)
            }
            // Nobody was registered by it, and it counts in the delivery metrics like any delivery.
            #expect(try await herald.request(.GET, "/events").body == "[]")
            let metrics = try await herald.request(.GET, "/metrics").body
            #expect(metrics.contains(#"herald_raw_sends_total{origin="herald",result="accepted"} 2"#))
            #expect(metrics.contains(#"provider="apns""#))
        }
    }

    /// compat.md §1.2: without headers, the push type and priority come from the `aps` object.
    @Test(arguments: [
        (#"{"aps":{"alert":"x"}}"#, "{}", "alert", "10"),
        (#"{"aps":{"badge":0}}"#, "{}", "alert", "10"),
        (#"{"aps":{"content-available":1}}"#, "{}", "background", "5"),
        (#"{"k":"v"}"#, "{}", "alert", "5"),
        (#"{"aps":{"content-available":1}}"#, #"{"apns-priority":"10"}"#, "background", "5"),
        (#"{"aps":{"alert":"x"}}"#, #"{"apns-push-type":"alert","apns-priority":"5"}"#, "alert", "5"),
    ])
    func pushTypeAndPriorityFollowThePayload(payload: String, headers: String, pushType: String, priority: String) async throws {
        try await withAPNs { herald, bed in
            let response = try await herald.request(.POST, "/send", json: Self.sendJSON(tokens: [APNsTestBed.token(1)], payload: payload, headers: headers))
            #expect(response.status == 202)
            try await eventually { bed.simulator.requestCount == 1 }
            try await eventually { try await herald.application.store.counts().retries == 0 }
            let sent = try #require(bed.simulator.accepted().first)
            #expect(sent.header("apns-push-type") == pushType)
            #expect(sent.header("apns-priority") == priority)
        }
    }

    @Test func topicAndRequestIDHeadersAreTheSenders() async throws {
        try await withAPNs { herald, bed in
            let id = "6f7b1c2e-0d4a-4e8f-9b3c-5a6d7e8f9a0b"
            let headers = #"{"apns-topic":"\#(bed.topic)","apns-id":"\#(id)","apns-expiration":"0"}"#
            #expect(try await herald.request(.POST, "/send", json: Self.sendJSON(tokens: [APNsTestBed.token(1)], headers: headers)).status == 202)
            try await eventually { bed.simulator.acceptedCount == 1 }
            let sent = try #require(bed.simulator.accepted().first)
            #expect(sent.header("apns-id") == id)
            #expect(sent.header("apns-topic") == bed.topic)
            #expect(sent.header("apns-expiration") == "0")
        }
    }

    @Test func invalidRequestsAreRefusedAndQueueNothing() async throws {
        try await withAPNs { herald, bed in
            let cases: [(String, String)] = [
                (Self.sendJSON(tokens: ["DEADBEEF"]), #"{"error":"Invalid value for `token'"}"#),
                (Self.sendJSON(tokens: []), #"{"error":"Invalid value for `tokens'"}"#),
                (#"{"proto":"nope","tokens":["a"],"payload":{}}"#, #"{"error":"Invalid value for `proto'"}"#),
                (#"{"proto":"apns","tokens":["\#(APNsTestBed.token(1))"],"payload":3}"#, #"{"error":"Invalid value for `payload'"}"#),
                (#"{"proto":"apns","tokens":["\#(APNsTestBed.token(1))"],"payload":{},"headers":[]}"#, #"{"error":"Invalid value for `headers'"}"#),
            ]
            for (body, expected) in cases {
                let response = try await herald.request(.POST, "/send", json: body)
                #expect(response.status == 400)
                #expect(response.body == expected)
            }
            // One valid token beside an invalid one: none is queued.
            let mixed = try await herald.request(.POST, "/send", json: Self.sendJSON(tokens: [APNsTestBed.token(1), "xyz"]))
            #expect(mixed.status == 400)
            let counts = try await herald.application.store.counts()
            #expect(counts.retries == 0)
            #expect(bed.simulator.requestCount == 0)
        }
    }

    @Test func transientFailuresAreRetriedUntilDelivered() async throws {
        try await withAPNs { herald, bed in
            bed.simulator.injectNext([.serviceUnavailable, .internalServerError])
            let response = try await herald.request(.POST, "/send", json: Self.sendJSON(tokens: [APNsTestBed.token(7)]))
            #expect(response.status == 202)
            try await eventually { bed.simulator.acceptedCount == 1 }
            #expect(bed.simulator.requestCount == 3, "two refusals, then the delivery")
            try await eventually { try await herald.application.store.counts().retries == 0 }
            let letters = try json(try await herald.request(.GET, "/dead-letters").body)
            #expect((letters["entries"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func permanentFailuresAreDeadLetteredAndReplayable() async throws {
        try await withAPNs { herald, bed in
            // A payload APNs refuses for every device: over the size limit it fails before any send.
            let big = #"{"aps":{"alert":"\#(String(repeating: "x", count: 5000))"}}"#
            #expect(try await herald.request(.POST, "/send", json: Self.sendJSON(tokens: [APNsTestBed.token(3)], payload: big)).status == 202)
            // Retries that run out.
            bed.simulator.injectNext(Array(repeating: .internalServerError, count: 3))
            #expect(try await herald.request(.POST, "/send", json: Self.sendJSON(tokens: [APNsTestBed.token(4)])).status == 202)

            try await eventually { try await Self.entries(herald, "/dead-letters?origin=herald").count == 2 }
            let entries = try await Self.entries(herald, "/dead-letters?origin=herald")
            let byToken = Dictionary(uniqueKeysWithValues: entries.map { ($0["token"] as? String ?? "", $0) })
            let tooLarge = try #require(byToken[APNsTestBed.token(3)])
            #expect(tooLarge["reason"] as? String == "PayloadTooLarge")
            #expect(tooLarge["subscriber"] is NSNull)
            #expect(tooLarge["origin"] as? String == "herald")
            #expect(tooLarge["event"] as? String == "promo")
            let exhausted = try #require(byToken[APNsTestBed.token(4)])
            #expect(exhausted["reason"] as? String == "InternalServerError")
            #expect(exhausted["attempts"] as? Int == 3)
            #expect((exhausted["payload"] as? [String: Any])?["body"] as? String == #"{"aps":{"alert":"hi"},"k":"v"}"#)

            // A raw token has no subscriber that could be gone: its dead letter is always replayed.
            let replay = try await herald.request(.POST, "/dead-letters/replay", json: #"{"provider":"apns","event":"promo"}"#)
            #expect(try json(replay.body)["replayed"] as? Int == 2, "\(replay.body)")
            try await eventually { bed.simulator.acceptedCount == 1 }
            #expect(bed.simulator.accepted().first?.token == APNsTestBed.token(4))
            try await eventually { try await Self.entries(herald, "/dead-letters").count == 1 }
            #expect(try await Self.entries(herald, "/dead-letters").first?["token"] as? String == APNsTestBed.token(3))
        }
    }

    @Test func theSendersAttemptLimitAndReferenceAreKept() async throws {
        try await withAPNs { herald, bed in
            bed.simulator.injectNext([.internalServerError])
            let body = #"{"proto":"apns","tokens":["\#(APNsTestBed.token(5))"],"payload":{"aps":{"alert":"x"}},"reference":"n-42","max_attempts":1}"#
            #expect(try await herald.request(.POST, "/send", json: body).status == 202)
            try await eventually { try await Self.entries(herald, "/dead-letters").count == 1 }
            let letter = try #require(try await Self.entries(herald, "/dead-letters").first)
            #expect(letter["attempts"] as? Int == 1, "no retry: the sender asked for one attempt")
            #expect((letter["payload"] as? [String: Any])?["reference"] as? String == "n-42")
            #expect(bed.simulator.requestCount == 1)
            let feedback = try #require(try await Self.entries(herald, "/feedback?origin=herald").first)
            #expect(feedback["reference"] as? String == "n-42")
            #expect(feedback["reason"] as? String == "InternalServerError")
            let zero = body.replacingOccurrences(of: #""max_attempts":1"#, with: #""max_attempts":0"#)
            #expect(try await herald.request(.POST, "/send", json: zero).body == #"{"error":"Invalid value for `max_attempts'"}"#)
        }
    }

    /// `expiration` and `max_attempts` are JSON numbers, whole ones however JSON writes them (`2.0` is
    /// an integer to docs/openapi.yaml); the same digits in a string, or a fraction, are refused.
    @Test func wholeNumbersAreTakenAsJSONWritesThem() async throws {
        try await withAPNs { herald, _ in
            let base = #"{"proto":"apns","tokens":["\#(APNsTestBed.token(6))"],"payload":{"aps":{"alert":"x"}}"#
            let expiration = Int(Date().timeIntervalSince1970) + 3600
            let whole = try await herald.request(.POST, "/send", json: base + #","max_attempts":2.0,"expiration":\#(expiration).0}"#)
            #expect(whole.status == 202, "\(whole.body)")
            let text = try await herald.request(.POST, "/send", json: base + #","max_attempts":"2"}"#)
            #expect(text.body == #"{"error":"Invalid value for `max_attempts'"}"#)
            #expect(try await herald.request(.POST, "/send", json: base + #","max_attempts":2.5}"#).status == 400)
            let stringExpiration = try await herald.request(.POST, "/send", json: base + #","expiration":"\#(expiration)"}"#)
            #expect(stringExpiration.body == #"{"error":"Invalid value for `expiration'"}"#)
        }
    }

    @Test func aSenderCanWaitForTheFirstAnswers() async throws {
        try await withAPNs { herald, bed in
            bed.simulator.unregister(token: APNsTestBed.token(3), at: Int64(Date().timeIntervalSince1970 * 1000) - 1000)
            let payload = PreparedPayload(body: #"{"aps":{"alert":"x"}}"#)
            let answers = try await herald.application.intake.send(
                RawSend(proto: "apns", tokens: [APNsTestBed.token(1), APNsTestBed.token(3)], payload: payload, origin: DeliveryOrigin("apns-ms"),
                    maxAttempts: 1),
                awaitingFirstAnswersFor: .seconds(60))
            #expect(answers.count == 2)
            #expect(answers[APNsTestBed.token(1)]?.outcome == .delivered)
            #expect(answers[APNsTestBed.token(3)]?.outcome == .deadToken)
            #expect(answers[APNsTestBed.token(3)]?.reason == "Unregistered")
            // A service that does not answer within the wait: no answer, and the send stays queued.
            bed.simulator.injectNext([.hang])
            let none = try await herald.application.intake.send(
                RawSend(proto: "apns", tokens: [APNsTestBed.token(4)], payload: payload, origin: DeliveryOrigin("apns-ms"), maxAttempts: 1),
                awaitingFirstAnswersFor: .milliseconds(500))
            #expect(none.isEmpty)
            #expect(try await herald.application.store.counts().retries == 1)
        }
    }

    @Test func feedbackOfRawTokensCarriesItsOriginAndNoSubscriber() async throws {
        try await withAPNs { herald, bed in
            let dead = APNsTestBed.token(9)
            bed.simulator.unregister(token: dead, at: Int64(Date().timeIntervalSince1970 * 1000) - 1000)
            // Through the intake API, as a compat front-end sends, and through the HTTP route.
            let payload = PreparedPayload(body: #"{"aps":{"alert":"x"}}"#)
            try await herald.application.intake.send(
                RawSend(proto: "apns", tokens: [dead], payload: payload, origin: DeliveryOrigin("gorush")))
            #expect(try await herald.request(.POST, "/send", json: Self.sendJSON(tokens: [dead])).status == 202)
            // A registered subscriber's dead token, published through pushd, for contrast.
            let registered = try await herald.request(.POST, "/subscribers", form: "proto=apns&token=\(APNsTestBed.token(10))")
            let id = try #require(try json(registered.body)["id"] as? String)
            bed.simulator.unregister(token: APNsTestBed.token(10), at: Int64(Date().timeIntervalSince1970 * 1000) + 60_000)
            #expect(try await herald.request(.POST, "/event/unicast:\(id)", form: "msg=x").status == 204)

            try await eventually { try await Self.entries(herald, "/feedback").count == 3 }
            let gorush = try await Self.entries(herald, "/feedback?origin=gorush")
            #expect(gorush.count == 1)
            #expect(gorush.first?["token"] as? String == dead)
            #expect(gorush.first?["subscriber"] is NSNull)
            #expect(gorush.first?["action"] as? String == "invalid")
            #expect(gorush.first?["reason"] as? String == "Unregistered")
            let native = try await Self.entries(herald, "/feedback?origin=herald&provider=apns")
            #expect(native.count == 1)
            #expect(native.first?["origin"] as? String == "herald")
            let pushd = try await Self.entries(herald, "/feedback?origin=pushd")
            #expect(pushd.count == 1)
            #expect(pushd.first?["subscriber"] as? String == id)
            #expect(pushd.first?["action"] as? String == "unregistered")
            #expect(try await herald.request(.GET, "/feedback?origin=").status == 400)
        }
    }

    @Test func aFullBacklogRefusesRawSendsWithRetryAfter() async throws {
        // APNs holds the first send unanswered, so it stays in the backlog; the bound is 1.
        try await withAPNsHerald(options: ["request_timeout: 120"], extra: Self.fast + "  max_backlog: 1\n") { herald, bed in
            bed.simulator.injectNext([.hang])
            // The backlog is sampled, not counted per request: a few sends may pass before the refusal.
            var accepted = 0
            var refusal: TestResponse?
            var refusedToken = ""
            for n in 1...100 where refusal == nil {
                let response = try await herald.request(.POST, "/send", json: Self.sendJSON(tokens: [APNsTestBed.token(n)]))
                if response.status == 202 {
                    accepted += 1
                    try await Task.sleep(for: .milliseconds(50))
                } else {
                    refusal = response
                    refusedToken = APNsTestBed.token(n)
                }
            }
            let refused = try #require(refusal)
            #expect(refused.status == 503)
            #expect(refused.headers["Retry-After"].first == "5")
            #expect(accepted >= 1)
            // Every accepted send but the held one is delivered; the refused one is not among them.
            let delivered = accepted - 1
            try await eventually { bed.simulator.acceptedCount == delivered }
            #expect(!bed.simulator.accepted().contains { $0.token == refusedToken })
            // The simulator counts a delivery before Herald has settled its answer: wait for the settling.
            try await eventually { try await herald.application.store.counts().retries == 1 }  // only the held send is still queued
            let metrics = try await herald.request(.GET, "/metrics").body
            #expect(metrics.contains(#"herald_raw_sends_total{code="overloaded",origin="herald",result="rejected"}"#))
        }
    }
}
