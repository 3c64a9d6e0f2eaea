import Foundation
import HeraldSimulators
import HeraldTestSupport
import HeraldWebPush
import Logging
import Testing

/// The Matrix push gateway (compat.md §8) on Herald's main port, against the APNs and FCM
/// simulators: a homeserver's `POST /_matrix/push/v1/notify`, answered once the deliveries are
/// queued, and delivered with Sygnal's payloads.
@Suite struct MatrixGatewayTests {
    static func yaml(apns: APNsTestBed, fcm: FCMTestBed) -> String {
        """
        providers:
        \(apns.providerYAML)
        \(fcm.providerYAML)
        compat:
          matrix:
            apps:
              im.example.ios: {provider: apns}
              "im.example.android.*": {provider: gcm, fcm_options: {android: {collapse_key: "room"}}}
              "im.example.*.beta": {provider: gcm}
              "im.example.android.beta": {provider: gcm}
        delivery:
          retry_delay: 0.01
          max_retry_delay: 0.05
          max_attempts: 2
          shutdown_grace_period: 0.1
        """
    }

    func withGateway<T>(_ body: (TestHerald, APNsTestBed, FCMTestBed) async throws -> T) async throws -> T {
        try await withAPNsAndFCMHerald(yaml: { Self.yaml(apns: $0, fcm: $1) }, body)
    }

    /// The base64 pushkey a Matrix client registers for an APNs token given in hex.
    static func pushkey(hex: String) -> String { Push2mobTests.base64(hex) }

    static let fcmToken = String(repeating: "m", count: 40) + ":APA91b"

    static func notification(devices: String, extra: String = "") -> String {
        """
        {"notification":{"event_id":"$ev1","room_id":"!room:example.org","type":"m.room.message",
         "sender":"@alice:example.org","sender_display_name":"Alice","room_name":"Ops",
         "content":{"msgtype":"m.text","body":"deploy done"},"counts":{"unread":2,"missed_calls":1},
         "prio":"high"\(extra),"devices":[\(devices)]}}
        """
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aMessageReachesAPNsAndFCMWithSygnalsPayloads() async throws {
        try await withGateway { herald, apns, fcm in
            let devices = """
                {"app_id":"im.example.ios","pushkey":"\(Self.pushkey(hex: APNsTestBed.token(1)))","pushkey_ts":1},
                {"app_id":"im.example.android.app","pushkey":"\(Self.fcmToken)","data":{"default_payload":{"k":"v"}}}
                """
            let response = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: devices))
            #expect(response.status == 200)
            #expect(try json(response.body)["rejected"] as? [String] == [])

            try await eventually { apns.simulator.acceptedCount == 1 }
            let sent = try #require(apns.simulator.accepted().first)
            #expect(sent.token.lowercased() == APNsTestBed.token(1))
            let payload = try json(sent.body)
            let aps = try #require(payload["aps"] as? [String: Any])
            let alert = try #require(aps["alert"] as? [String: Any])
            #expect(alert["loc-key"] as? String == "MSG_FROM_USER_IN_ROOM_WITH_CONTENT")
            #expect(alert["loc-args"] as? [String] == ["Alice", "Ops", "deploy done"])
            #expect(aps["badge"] as? Int == 3, "unread + missed calls")
            #expect(payload["room_id"] as? String == "!room:example.org")
            #expect(payload["event_id"] as? String == "$ev1")
            #expect(sent.header("apns-priority") == "10")

            try await eventually { fcm.simulator.acceptedCount == 1 }
            let message = try #require(fcm.simulator.accepted().first)
            #expect(message.token == Self.fcmToken)
            let fields = try #require(try json(message.body)["message"] as? [String: Any])
            let data = try #require(fields["data"] as? [String: String])
            #expect(data["event_id"] == "$ev1")
            #expect(data["content_body"] == "deploy done")
            #expect(data["unread"] == "2")
            #expect(data["k"] == "v", "default_payload's keys")
            let android = try #require(fields["android"] as? [String: Any])
            #expect(android["priority"] as? String == "high")
            #expect(android["collapse_key"] as? String == "room", "fcm_options merged under the message")
        }
    }

    @Test func unknownAmbiguousAndMalformedPushkeysAreRejectedAndTheRestSent() async throws {
        try await withGateway { herald, apns, _ in
            let devices = """
                {"app_id":"im.other","pushkey":"unknown-app"},
                {"app_id":"im.example.android.x.beta","pushkey":"ambiguous"},
                {"app_id":"im.example.ios","pushkey":"bm90IGEgdG9rZW4="},
                {"app_id":"im.example.ios","pushkey":"\(Self.pushkey(hex: APNsTestBed.token(2)))","data":{"default_payload":"text"}},
                {"app_id":"im.example.ios","pushkey":"\(Self.pushkey(hex: APNsTestBed.token(3)))"}
                """
            let response = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: devices))
            #expect(response.status == 200)
            let rejected = try #require(try json(response.body)["rejected"] as? [String])
            #expect(rejected == ["unknown-app", "ambiguous", "bm90IGEgdG9rZW4=", Self.pushkey(hex: APNsTestBed.token(2))])
            try await eventually { apns.simulator.acceptedCount == 1 }
            #expect(apns.simulator.accepted().map { $0.token.lowercased() } == [APNsTestBed.token(3)])
        }
    }

    @Test func anExactAppIDWinsOverGlobs() async throws {
        try await withGateway { herald, _, fcm in
            // Both globs match `im.example.android.beta`, but its exact entry decides.
            let devices = #"{"app_id":"im.example.android.beta","pushkey":"\#(Self.fcmToken)"}"#
            let response = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: devices))
            #expect(try json(response.body)["rejected"] as? [String] == [])
            try await eventually { fcm.simulator.acceptedCount == 1 }
        }
    }

    @Test func aLowPriorityBadgeOnlyNotificationIsABadgeUpdate() async throws {
        try await withGateway { herald, apns, _ in
            let body = """
                {"notification":{"id":"","type":null,"counts":{"unread":4},"prio":"low",
                 "devices":[{"app_id":"im.example.ios","pushkey":"\(Self.pushkey(hex: APNsTestBed.token(4)))"}]}}
                """
            let response = try await herald.request(.POST, "/_matrix/push/v1/notify", json: body)
            #expect(response.status == 200)
            try await eventually { apns.simulator.acceptedCount == 1 }
            let sent = try #require(apns.simulator.accepted().first)
            #expect(try json(sent.body)["aps"] as? [String: Int] == ["badge": 4])
            #expect(sent.header("apns-priority") == "5")
        }
    }

    @Test func aRepeatedEventIsDeliveredOnceToEachPushkeyAndABadgeUpdateEveryTime() async throws {
        try await withGateway { herald, apns, _ in
            let devices = #"{"app_id":"im.example.ios","pushkey":"\#(Self.pushkey(hex: APNsTestBed.token(6)))"}"#
            // The homeserver's request timed out and it tries again: the same answer, one push.
            for _ in 0..<2 {
                let response = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: devices))
                #expect(response.status == 200)
                #expect(try json(response.body)["rejected"] as? [String] == [])
            }
            let badgeOnly = """
                {"notification":{"id":"","type":null,"counts":{"unread":0},
                 "devices":[{"app_id":"im.example.ios","pushkey":"\(Self.pushkey(hex: APNsTestBed.token(6)))"}]}}
                """
            for _ in 0..<2 { #expect(try await herald.request(.POST, "/_matrix/push/v1/notify", json: badgeOnly).status == 200) }
            // Another device of the same event is sent: the key is the event and the pushkey.
            let other = #"{"app_id":"im.example.ios","pushkey":"\#(Self.pushkey(hex: APNsTestBed.token(7)))"}"#
            #expect(try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: other)).status == 200)

            try await eventually { apns.simulator.acceptedCount == 4 }
            let sent = apns.simulator.accepted()
            let messages = sent.filter { (try? json($0.body)["event_id"]) as? String == "$ev1" }
            #expect(messages.map { $0.token.lowercased() }.sorted() == [APNsTestBed.token(6), APNsTestBed.token(7)].sorted())
            #expect(sent.count - messages.count == 2, "both badge updates")
            let metrics = try await herald.request(.GET, "/metrics").body
            #expect(metrics.contains(#"herald_matrix_pushkeys_total{app="im.example.ios",result="repeated"} 1"#), "\(metrics)")
        }
    }

    @Test func theHomeserverIsAnsweredWhileAPNsHoldsTheRequest() async throws {
        try await withGateway { herald, apns, _ in
            apns.simulator.setFaults(APNsSimulator.Faults(hangRate: 1))
            let devices = #"{"app_id":"im.example.ios","pushkey":"\#(Self.pushkey(hex: APNsTestBed.token(8)))"}"#
            let response = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: devices))
            #expect(response.status == 200)
            #expect(try json(response.body)["rejected"] as? [String] == [])
            // APNs takes the request and never answers it; the homeserver had its answer regardless.
            try await eventually { apns.simulator.requestCount >= 1 }
            #expect(apns.simulator.acceptedCount == 0)
        }
    }

    @Test func aDeadTokenIsFedBackWithTheMatrixOrigin() async throws {
        try await withGateway { herald, apns, _ in
            let token = APNsTestBed.token(5)
            apns.simulator.unregister(token: token, at: 1_700_000_000_000)
            let devices = #"{"app_id":"im.example.ios","pushkey":"\#(Self.pushkey(hex: token))"}"#
            let response = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: devices))
            #expect(response.status == 200)
            try await eventually {
                try await RawSendTests.entries(herald, "/feedback?origin=matrix").contains { $0["token"] as? String == token }
            }
        }
    }

    @Test func anAppOfAProviderKindTheGatewayCannotSendThroughIsAConfigurationError() async throws {
        let yaml = """
            providers:
              http:
                kind: http
            compat:
              matrix:
                apps:
                  im.example.web: {provider: http}
            """
        let error = await #expect(throws: (any Error).self) { try await withHerald(yaml: yaml) { _ in } }
        #expect("\(error.map(String.init(describing:)) ?? "")".contains("the Matrix gateway sends through apns, fcm, hms or webpush"))
    }

    @Test func aWebPushPusherGetsSygnalsPayloadEncryptedForItsSubscription() async throws {
        let matrix = """
            compat:
              matrix:
                apps:
                  im.example.web: {provider: webpush, ttl: 600, only_last_per_room: true}
            """
        try await withWebPushHerald(extra: matrix) { herald, simulator, key in
            let browser = try simulator.makeSubscription(applicationServerKey: key.publicKeyBase64URL)
            let device = """
                {"app_id":"im.example.web","pushkey":"\(browser.p256dh)","data":{"endpoint":"\(browser.endpoint)","auth":"\(browser.auth)"}},
                {"app_id":"im.example.web","pushkey":"\(browser.p256dh)","data":{"endpoint":"\(browser.endpoint)"}}
                """
            let body = Self.notification(devices: device, extra: #","content":{"msgtype":"m.text","body":"hi","formatted_body":"<b>hi</b>"}"#)
            let response = try await herald.request(.POST, "/_matrix/push/v1/notify", json: body)
            #expect(response.status == 200)
            #expect(try json(response.body)["rejected"] as? [String] == [browser.p256dh], "the second pusher has no auth")
            try await eventually { simulator.acceptedCount == 1 }
            let sent = try #require(simulator.accepted().first)
            let payload = try json(String(decoding: sent.plaintext, as: UTF8.self))
            #expect(payload["room_id"] as? String == "!room:example.org")
            #expect(payload["sender_display_name"] as? String == "Alice")
            #expect(payload["unread"] as? Int == 2)
            #expect(payload["content"] as? [String: String] == ["msgtype": "m.text", "body": "hi"], "formatted_body is left out")
            #expect(sent.ttl == 600)
            #expect(sent.urgency == "normal")
            #expect(sent.topic == WebPushTopic.make(collapseKey: "!room:example.org"), "one topic per room")
        }
    }

    @Test func withoutCompatMatrixThePathsAnswerAsAbsentAndStayKnown() async throws {
        try await withHerald { herald in
            let notify = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: ""))
            #expect(notify.status == 404)
            #expect(notify.body == "Not Found")
            #expect(try await herald.request(.GET, "/health").status == 404)
            #expect(try await herald.request(.PUT, "/_matrix/push/v1/notify").status == 405)
        }
    }

    @Test func aPushkeyAPNsCalledDeadIsRejectedAtTheNextNotificationUntilItsPusherIsUpdated() async throws {
        try await withGateway { herald, apns, _ in
            let token = APNsTestBed.token(6)
            apns.simulator.unregister(token: token, at: 1_700_000_000_000)
            let devices = #"{"app_id":"im.example.ios","pushkey":"\#(Self.pushkey(hex: token))","pushkey_ts":1}"#
            let first = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: devices))
            #expect(try json(first.body)["rejected"] as? [String] == [], "not known dead yet")
            try await eventually {
                try await RawSendTests.entries(herald, "/feedback?origin=matrix").contains { $0["token"] as? String == token }
            }
            let second = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: devices))
            #expect(try json(second.body)["rejected"] as? [String] == [Self.pushkey(hex: token)])
            // A pusher set again after the report (a reinstall) is sent to.
            let renewed = #"{"app_id":"im.example.ios","pushkey":"\#(Self.pushkey(hex: token))","pushkey_ts":4102444800}"#
            let third = try await herald.request(.POST, "/_matrix/push/v1/notify", json: Self.notification(devices: renewed))
            #expect(try json(third.body)["rejected"] as? [String] == [])
        }
    }

    @Test func refusalsAreInTheMatrixForm() async throws {
        try await withGateway { herald, apns, _ in
            let notJSON = try await herald.request(.POST, "/_matrix/push/v1/notify", json: "{not json")
            #expect(notJSON.status == 400)
            #expect(try json(notJSON.body)["errcode"] as? String == "M_NOT_JSON")
            let noDevices = try await herald.request(.POST, "/_matrix/push/v1/notify", json: #"{"notification":{"devices":[]}}"#)
            #expect(noDevices.status == 400)
            #expect(try json(noDevices.body)["errcode"] as? String == "M_BAD_JSON")
            let noNotification = try await herald.request(.POST, "/_matrix/push/v1/notify", json: #"{"devices":[]}"#)
            #expect(try json(noNotification.body)["errcode"] as? String == "M_BAD_JSON")
            let get = try await herald.request(.GET, "/_matrix/push/v1/notify")
            #expect(get.status == 405)
            #expect(try json(get.body)["errcode"] as? String == "M_UNRECOGNIZED")
            let large = String(repeating: " ", count: 512 * 1024) + Self.notification(devices: "")
            let tooLarge = try await herald.request(.POST, "/_matrix/push/v1/notify", json: large)
            #expect(tooLarge.status == 413)
            #expect(try json(tooLarge.body)["errcode"] as? String == "M_TOO_LARGE")
            #expect(try await herald.request(.GET, "/health").status == 200)
            #expect(apns.simulator.acceptedCount == 0, "nothing refused was sent")
        }
    }
}
