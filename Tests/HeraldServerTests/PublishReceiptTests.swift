import Foundation
import HeraldTestSupport
import Testing

/// Every accepted publish has an id (issue 19's receipts): `Herald-Publish-Id` on pushd's `204`,
/// and `202 {"id":...}` for a client that accepts JSON.
@Suite struct PublishReceiptTests {
    static func isPublishID(_ text: String?) -> Bool {
        guard let text, text.utf8.count == 32 else { return false }
        return text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    @Test func pushdClientsKeepTheir204AndGetTheIdInAHeader() async throws {
        try await withHerald { herald in
            let first = try await herald.request(.POST, "/event/scores", form: "msg=goal")
            #expect(first.status == 204)
            #expect(first.body.isEmpty)
            #expect(Self.isPublishID(first.header("Herald-Publish-Id")), "\(first.header("Herald-Publish-Id") ?? "none")")
            let second = try await herald.request(.POST, "/event/scores", form: "msg=again", headers: [("Accept", "*/*")])
            #expect(second.status == 204)
            #expect(Self.isPublishID(second.header("Herald-Publish-Id")))
            #expect(first.header("Herald-Publish-Id") != second.header("Herald-Publish-Id"), "one id per publish")
        }
    }

    @Test func aClientThatAcceptsJSONGets202WithTheId() async throws {
        try await withHerald { herald in
            let response = try await herald.request(
                .POST, "/event/scores", json: #"{"msg":"goal"}"#, headers: [("Accept", "text/html, application/json;q=0.9")])
            #expect(response.status == 202)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
            let id = body["id"] as? String
            #expect(Self.isPublishID(id))
            #expect(response.header("Herald-Publish-Id") == id)
            // A refused publish has no id.
            let refused = try await herald.request(.POST, "/event/scores", json: "{}", headers: [("Accept", "application/json")])
            #expect(refused.status == 400)
            #expect(refused.header("Herald-Publish-Id") == nil)
        }
    }
}

/// `GET /publishes/<id>`, scheduled publishes with `DELETE /publishes/<id>`, and `Idempotency-Key`,
/// through the HTTP API with real webhook deliveries.
@Suite struct PublishProgressTests {
    static func receipt(_ herald: TestHerald, _ id: String) async throws -> [String: Any] {
        let response = try await herald.request(.GET, "/publishes/\(id)")
        #expect(response.status == 200, "\(response.body)")
        return try #require(try Fixtures.json(response.body) as? [String: Any])
    }

    static func publish(_ herald: TestHerald, _ path: String, json: String, headers: [(String, String)] = []) async throws -> String {
        let response = try await herald.request(.POST, path, json: json, headers: headers)
        #expect(response.status == 204, "\(response.body)")
        return try #require(response.header("Herald-Publish-Id"))
    }

    @Test func aReceiptFollowsAPublishToDoneWithItsFailuresByReason() async throws {
        let yaml = """
            delivery:
              max_attempts: 2
              retry_delay: 0.01
              max_retry_delay: 0.02
            """
        try await withReceiver(behaviour: { request in request.path == "/gone" ? .gone : request.path == "/down" ? .serviceUnavailable : .ok }) {
            receiver in
            try await withHerald(yaml: yaml) { herald in
                for path in ["/a", "/b", "/c", "/gone", "/down"] {
                    let id = try await Fixtures.register(herald, url: receiver.url(path))
                    #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/scores").status == 201)
                }
                let id = try await Self.publish(herald, "/event/scores", json: #"{"msg":"goal"}"#)
                try await eventually { try await Self.receipt(herald, id)["state"] as? String == "done" }
                let done = try await Self.receipt(herald, id)
                #expect(done["id"] as? String == id)
                #expect(done["event"] as? String == "scores")
                #expect(done["audience"] as? Int == 5)
                #expect(done["delivered"] as? Int == 3)
                #expect(done["failed"] as? Int == 2)
                #expect(done["pending"] as? Int == 0)
                #expect(done["retrying"] as? Int == 0)
                #expect(done["dead_lettered"] as? Int == 2, "the 410 at once, the 503 once its attempts ran out")
                #expect(done["failures"] as? [String: Int] == ["HTTP 410": 1, "HTTP 503": 1])
                #expect(done["scheduled_at"] is NSNull)
                let created = try #require(done["created"] as? Int)
                let started = try #require(done["started"] as? Int)
                let finished = try #require(done["finished"] as? Int)
                #expect(created <= started && started <= finished)

                // Nobody subscribed: done at once. An unknown id: 404 with a JSON error.
                let empty = try await Self.publish(herald, "/event/nobody", json: #"{"msg":"x"}"#)
                let emptyReceipt = try await Self.receipt(herald, empty)
                #expect(emptyReceipt["state"] as? String == "done" && emptyReceipt["audience"] as? Int == 0)
                let unknown = try await herald.request(.GET, "/publishes/\(String(repeating: "0", count: 32))")
                #expect(unknown.status == 404)
                #expect((try Fixtures.json(unknown.body) as? [String: Any])?["error"] is String)
                #expect(try await herald.request(.GET, "/publishes/not-an-id").status == 404)
            }
        }
    }

    @Test func aScheduledPublishWaitsAndCanBeCancelledUntilItStarts() async throws {
        try await withReceiver { receiver in
            try await withHerald { herald in
                let subscriber = try await Fixtures.register(herald, url: receiver.url("/hook"))
                #expect(try await herald.request(.POST, "/subscriber/\(subscriber)/subscriptions/later").status == 201)

                // Four seconds: room for the checks below to run before it is due, however loaded the machine.
                let soon = try await Self.publish(herald, "/event/later", json: #"{"msg":"soon","delay":4}"#)
                let waiting = try await Self.receipt(herald, soon)
                #expect(waiting["state"] as? String == "scheduled")
                let created = try #require(waiting["created"] as? Int)
                #expect(waiting["scheduled_at"] as? Int == created + 4)
                #expect(receiver.count == 0)
                let delivered = try await receiver.waitFor(count: 1)
                #expect(delivered[0].body.contains("soon"))
                try await eventually { try await Self.receipt(herald, soon)["state"] as? String == "done" }
                #expect(try await herald.request(.DELETE, "/publishes/\(soon)").status == 409)

                let far = Int(Date().timeIntervalSince1970) + 3600
                let cancelled = try await Self.publish(herald, "/event/later", json: #"{"msg":"never","at":\#(far)}"#)
                #expect(try await Self.receipt(herald, cancelled)["scheduled_at"] as? Int == far)
                #expect(try await herald.request(.DELETE, "/publishes/\(cancelled)").status == 204)
                #expect(try await Self.receipt(herald, cancelled)["state"] as? String == "cancelled")
                #expect(try await herald.request(.DELETE, "/publishes/\(cancelled)").status == 409)
                #expect(try await herald.request(.DELETE, "/publishes/\(String(repeating: "a", count: 32))").status == 404)

                // RFC 3339 in a pushd form body; in the past it sends now.
                let past = try await herald.request(.POST, "/event/later", form: "msg=now&at=2020-01-01T00:00:00Z")
                #expect(past.status == 204)
                _ = try await receiver.waitFor(count: 2)
                #expect(receiver.requests.contains { $0.body.contains("now") })

                // Too far ahead, both keys, or nonsense: 400, nothing stored.
                for body in [#"{"msg":"x","delay":99999999}"#, #"{"msg":"x","delay":1,"at":1}"#, #"{"msg":"x","at":"tomorrow"}"#, #"{"msg":"x","delay":-1}"#] {
                    let refused = try await herald.request(.POST, "/event/later", json: body)
                    #expect(refused.status == 400, "\(body)")
                    #expect(refused.header("Herald-Publish-Id") == nil)
                }
                #expect(receiver.count == 2)
            }
        }
    }

    @Test func anIdempotencyKeyAnswersARepeatAsTheFirstAndRefusesAnotherRequest() async throws {
        try await withReceiver { receiver in
            try await withHerald { herald in
                let subscriber = try await Fixtures.register(herald, url: receiver.url("/hook"))
                #expect(try await herald.request(.POST, "/subscriber/\(subscriber)/subscriptions/orders").status == 201)
                let key = ("Idempotency-Key", "order-42")
                let accept = ("Accept", "application/json")
                let first = try await herald.request(.POST, "/event/orders", json: #"{"msg":"shipped"}"#, headers: [key, accept])
                #expect(first.status == 202)
                let again = try await herald.request(.POST, "/event/orders", json: #"{"msg":"shipped"}"#, headers: [key, accept])
                #expect(again.status == 202)
                #expect(again.body == first.body)
                #expect(again.header("Herald-Publish-Id") == first.header("Herald-Publish-Id"))

                let otherBody = try await herald.request(.POST, "/event/orders", json: #"{"msg":"lost"}"#, headers: [key])
                #expect(otherBody.status == 422)
                #expect((try Fixtures.json(otherBody.body) as? [String: Any])?["error"] is String)
                let otherEvent = try await herald.request(.POST, "/event/other", json: #"{"msg":"shipped"}"#, headers: [key])
                #expect(otherEvent.status == 422)

                _ = try await receiver.waitFor(count: 1)
                let statistics = try #require(try Fixtures.json(try await herald.request(.GET, "/event/orders").body) as? [String: Any])
                #expect(statistics["total"] as? Int == 1, "published once")
                #expect(receiver.count == 1)
            }
        }
    }
}
