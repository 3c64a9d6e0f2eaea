import Foundation
import HeraldSimulators
import HeraldTestSupport
import Testing

/// gorush's `POST /api/push` (compat.md §6) against the APNs and FCM simulators: gorush clients'
/// requests and answers, unchanged.
@Suite struct GorushTests {
    static func yaml(apns: APNsTestBed, fcm: FCMTestBed, extra: String = "") -> String {
        """
        providers:
        \(apns.providerYAML)
        \(fcm.providerYAML)
        compat:
          gorush: {ios_provider: apns, android_provider: gcm}
        delivery:
          retry_delay: 0.01
          max_retry_delay: 0.05
          max_attempts: 3
        \(extra)
        """
    }

    func withGorush<T>(extra: String = "", _ body: (TestHerald, APNsTestBed, FCMTestBed) async throws -> T) async throws -> T {
        try await withAPNsAndFCMHerald(yaml: { Self.yaml(apns: $0, fcm: $1, extra: extra) }, body)
    }

    static let fcmToken = String(repeating: "a", count: 40) + ":APA91b"

    func json(_ text: String) throws -> [String: Any] {
        try #require(try Fixtures.json(text) as? [String: Any])
    }

    @Test func iosAndAndroidNotificationsAreSentAndCounted() async throws {
        try await withGorush { herald, apns, fcm in
            let body = """
                {"notifications":[
                  {"tokens":["\(APNsTestBed.token(1))","\(APNsTestBed.token(2))"],"platform":1,"message":"Hello World iOS!","badge":0,
                   "sound":"default","data":{"k":"v","n":1},"collapse_id":"c1","priority":"normal","development":true},
                  {"tokens":["\(Self.fcmToken)"],"platform":2,"title":"Hello Android","message":"Hello World Android!",
                   "data":{"k":"v","n":1,"o":{"a":true}},"priority":"high"},
                  {"tokens":["x"],"platform":3,"message":"Huawei"}
                ]}
                """
            let response = try await herald.request(.POST, "/api/push", json: body)
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"].first == "application/json; charset=utf-8")
            #expect(response.body == #"{"counts":3,"logs":[],"success":"ok"}"#, "platform 3 is skipped and not counted")

            try await eventually { apns.simulator.acceptedCount == 2 }
            let sent = try #require(apns.simulator.accepted().first)
            #expect(sent.body == #"{"aps":{"alert":"Hello World iOS!","badge":0,"sound":"default"},"k":"v","n":1}"#)
            #expect(sent.header("apns-priority") == "5")
            #expect(sent.header("apns-push-type") == "alert")
            #expect(sent.header("apns-collapse-id") == "c1")
            // `development` picks the sandbox host, which the configured endpoint replaces; it is never a header.
            #expect(!sent.headers.contains { $0.name.hasPrefix("herald-") })

            try await eventually { fcm.simulator.acceptedCount == 1 }
            let message = try #require(fcm.simulator.accepted().first)
            #expect(message.token == Self.fcmToken)
            let parsed = try json(message.body)["message"] as? [String: Any]
            #expect(parsed?["data"] as? [String: String] == ["k": "v", "n": "1", "o": #"{"a":true}"#], "data values are strings in FCM v1")
            #expect((parsed?["notification"] as? [String: String]) == ["title": "Hello Android", "body": "Hello World Android!"])
            #expect((parsed?["android"] as? [String: Any])?["priority"] as? String == "HIGH")
        }
    }

    @Test func androidTTLInNanosecondsIsSentAsTheExactDuration() async throws {
        try await withGorush { herald, _, fcm in
            let body = """
                {"notifications":[
                  {"tokens":["\(Self.fcmToken)"],"platform":2,"message":"one","android":{"ttl":3500000000}},
                  {"tokens":["\(Self.fcmToken)"],"platform":2,"message":"two","android":{"ttl":7000000000}}
                ]}
                """
            let response = try await herald.request(.POST, "/api/push", json: body)
            #expect(response.status == 200)
            try await eventually { fcm.simulator.acceptedCount == 2 }
            var ttls: [String] = []
            for message in fcm.simulator.accepted() {
                let android = try json(message.body)["message"].flatMap { ($0 as? [String: Any])?["android"] } as? [String: Any]
                ttls.append(try #require(android?["ttl"] as? String))
            }
            #expect(ttls.sorted() == ["3.5s", "7s"], "compat.md §6.5: the exact duration, not whole seconds")
        }
    }

    @Test func androidTopicsAndConditionsGetAMessageOfTheirOwn() async throws {
        try await withGorush { herald, _, fcm in
            let body = """
                {"notifications":[
                  {"tokens":["\(Self.fcmToken)"],"platform":2,"message":"to a device and a topic","topic":"/topics/news"},
                  {"platform":2,"message":"to a condition","condition":"'dogs' in topics || 'cats' in topics"}
                ]}
                """
            let response = try await herald.request(.POST, "/api/push", json: body)
            #expect(response.body == #"{"counts":2,"logs":[],"success":"ok"}"#, "the device, and one for the topic; a condition is not counted")
            try await eventually { fcm.simulator.acceptedCount == 3 }
            let accepted = fcm.simulator.accepted()
            #expect(accepted.filter { $0.token == Self.fcmToken }.count == 1)
            #expect(Set(accepted.compactMap(\.topic)) == ["news", "'dogs' in topics || 'cats' in topics"])
            let topical = try #require(accepted.first { $0.topic == "news" })
            #expect((try json(topical.body)["message"] as? [String: Any])?["topic"] as? String == "news")
            #expect(!topical.body.contains("token"))
        }
    }

    @Test func aDryRunIsOnlyValidated() async throws {
        try await withGorush { herald, _, fcm in
            let body = #"{"notifications":[{"tokens":["\#(Self.fcmToken)"],"platform":2,"message":"x","dry_run":true}]}"#
            #expect(try await herald.request(.POST, "/api/push", json: body).status == 200)
            try await eventually { fcm.simulator.acceptedCount == 1 }
            let sent = try #require(fcm.simulator.accepted().first)
            #expect(sent.validateOnly)
            #expect(sent.token == Self.fcmToken)
        }
    }

    @Test func aTokenTheProviderCannotTakeIsLeftOutAndTheOthersAreSent() async throws {
        try await withGorush { herald, apns, _ in
            let body = #"{"notifications":[{"tokens":["not-hex","\#(APNsTestBed.token(1))"],"platform":1,"message":"x"}]}"#
            let response = try await herald.request(.POST, "/api/push", json: body)
            #expect(response.body == #"{"counts":2,"logs":[],"success":"ok"}"#, "counted as gorush counts, as gorush would have sent both")
            try await eventually { apns.simulator.acceptedCount == 1 }
            #expect(apns.simulator.accepted().map(\.token) == [APNsTestBed.token(1)])
            try await eventually { try await herald.application.store.counts().retries == 0 }
            #expect(apns.simulator.requestCount == 1, "the invalid token was never sent")
        }
    }

    @Test func theAlertFollowsGorushsRule() async throws {
        try await withGorush { herald, apns, _ in
            let body = """
                {"notifications":[
                  {"tokens":["\(APNsTestBed.token(1))"],"platform":1,"title":"T","message":"M","alert":{"subtitle":"S"},
                   "content_available":true,"mutable_content":true,"thread-id":"t1","topic":"\(apns.topic)","apns_id":"6f7b1c2e-0d4a-4e8f-9b3c-5a6d7e8f9a0b"}
                ]}
                """
            let response = try await herald.request(.POST, "/api/push", json: body)
            #expect(response.body == #"{"counts":2,"logs":[],"success":"ok"}"#, "a topic counts one more, as gorush counts it")
            try await eventually { apns.simulator.acceptedCount == 1 }
            let sent = try #require(apns.simulator.accepted().first)
            #expect(sent.body == #"{"aps":{"alert":{"title":"T","body":"M","subtitle":"S"},"content-available":1,"mutable-content":1,"thread-id":"t1"}}"#)
            #expect(sent.header("apns-id") == "6f7b1c2e-0d4a-4e8f-9b3c-5a6d7e8f9a0b")
            #expect(sent.header("apns-topic") == apns.topic)
            #expect(sent.header("apns-priority") == "10")
        }
    }

    @Test(arguments: [
        ("not json", "Missing notifications field."),
        (#"{}"#, "Missing notifications field."),
        (#"{"notifications":null}"#, "Missing notifications field."),
        (#"{"notifications":[{"tokens":["a"],"platform":1,"mutable_content":1}]}"#, "Missing notifications field."),
        (#"{"notifications":[{"tokens":["a"],"platform":"1"}]}"#, "Missing notifications field."),
        (#"{"notifications":[]}"#, "Notifications field is empty."),
    ])
    func malformedRequestsGetGorushsAnswers(body: String, message: String) async throws {
        try await withGorush { herald, apns, _ in
            let response = try await herald.request(.POST, "/api/push", json: body)
            #expect(response.status == 400)
            #expect(response.body == #"{"code":400,"message":"\#(message)"}"#)
            #expect(apns.simulator.requestCount == 0)
        }
    }

    @Test func moreThanOneHundredNotificationsAreRefused() async throws {
        try await withGorush { herald, _, _ in
            let one = #"{"tokens":["\#(APNsTestBed.token(1))"],"platform":1,"message":"x"}"#
            let body = #"{"notifications":["# + Array(repeating: one, count: 101).joined(separator: ",") + "]}"
            let response = try await herald.request(.POST, "/api/push", json: body)
            #expect(response.status == 400)
            #expect(response.body == #"{"code":400,"message":"Number of notifications(101) over limit(100)"}"#)
            #expect(try await herald.application.store.counts().retries == 0)
        }
    }

    @Test func deadTokensAreFedBackWithTheNotificationID() async throws {
        try await withGorush { herald, apns, _ in
            apns.simulator.unregister(token: APNsTestBed.token(9), at: Int64(Date().timeIntervalSince1970 * 1000) - 1000)
            let body = #"{"notifications":[{"notif_id":"n-7","tokens":["\#(APNsTestBed.token(9))"],"platform":1,"message":"x"}]}"#
            #expect(try await herald.request(.POST, "/api/push", json: body).status == 200)
            try await eventually { try await RawSendTests.entries(herald, "/feedback?origin=gorush").count == 1 }
            let entry = try #require(try await RawSendTests.entries(herald, "/feedback?origin=gorush").first)
            #expect(entry["reference"] as? String == "n-7")
            #expect(entry["action"] as? String == "invalid")
            #expect(entry["token"] as? String == APNsTestBed.token(9))
        }
    }

    @Test func aFullQueueIsReportedInLogs() async throws {
        try await withGorush(extra: "  max_backlog: 1\n") { herald, apns, _ in
            apns.simulator.injectNext([.hang])
            let first = #"{"notifications":[{"tokens":["\#(APNsTestBed.token(1))"],"platform":1,"message":"held"}]}"#
            #expect(try await herald.request(.POST, "/api/push", json: first).status == 200)
            try await eventually { apns.simulator.requestCount == 1 }
            let second = #"{"notifications":[{"notif_id":"n-2","tokens":["\#(APNsTestBed.token(2))"],"platform":1,"message":"later"}]}"#
            // The backlog is sampled every 200 ms: the refusal comes once it has counted the held one.
            try await eventually { try await herald.request(.POST, "/api/push", json: second).body.contains("max capacity reached") }
            let answer = try await herald.request(.POST, "/api/push", json: second).body
            #expect(answer == #"{"counts":1,"logs":[{"notif_id":"n-2","type":"failed-push","platform":"ios","token":"\#(APNsTestBed.token(2))","message":"later","error":"max capacity reached"}],"success":"ok"}"#)
        }
    }
}
