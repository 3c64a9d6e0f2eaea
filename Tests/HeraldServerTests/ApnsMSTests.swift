import Foundation
import HeraldSimulators
import HeraldTestSupport
import NIOCore
import NIOPosix
import Testing

/// The apns-ms stand-in (compat.md §4): real HTTP/1.1 requests to its own port, deliveries to the
/// APNs simulator over TLS + HTTP/2.
@Suite struct ApnsMSTests {
    static let compat = """
        compat:
          apns_ms: {provider: apns}

        """

    /// The README's request (compat.md §4.2).
    static let readmeRequest = #"""
        {"deviceToken":"b8e0c9ce2114fc73adf117de0c97376626ef9c34bbfec4fe18e1fe0b96321cae",
         "payload":{"aps":{"alert":"Hi there!","sound":"default"},
                    "customValues":{"weather":"It will be sunny today"}},
         "identifier":"0507e79b",
         "expires":"2015-10-22T10:00:00+02:00",
         "priority":10}
        """#

    /// Runs `body` with an APNs simulator and a Herald whose apns-ms port is bound.
    func withApnsMS<T>(extra: String = "", _ body: (TestHerald, APNsTestBed, Int) async throws -> T) async throws -> T {
        try await withAPNsHerald(extra: Self.compat + extra) { herald, bed in
            try await body(herald, bed, try #require(herald.frontEndPorts["apns_ms"]))
        }
    }

    /// A whole answer read off the socket.
    struct RawResponse {
        var status: Int
        var headers: [(String, String)]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// Sends one request as written (so that methods, paths and bodies are exactly the test's) and
    /// reads the answer until the server closes the connection.
    func request(_ port: Int, _ method: String, _ path: String, body: String? = nil) async throws -> RawResponse {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        var received = ByteBuffer()
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: text))
            for try await var chunk in inbound { received.writeBuffer(&chunk) }
        }
        let answer = String(buffer: received)
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let head = parts[0].components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        let headers = head.dropFirst().map { line -> (String, String) in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (String(line[..<colon]), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        return RawResponse(status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    func notify(_ port: Int, _ body: String) async throws -> RawResponse {
        try await request(port, "POST", "/notification", body: body)
    }

    static func notification(token: String = APNsTestBed.token(1), identifier: String = "0507e79b", payload: String = #"{"aps":{"alert":"x"}}"#) -> String {
        #"{"deviceToken":"\#(token)","payload":\#(payload),"identifier":"\#(identifier)"}"#
    }

    @Test func theReadmeRequestIsSentAndEchoedByteForByte() async throws {
        try await withApnsMS { herald, bed, port in
            let response = try await notify(port, Self.readmeRequest)
            #expect(response.status == 202)
            #expect(response.header("Content-Type") == "application/json; charset=utf8")
            #expect(
                response.body
                    == #"{"deviceToken":"b8e0c9ce2114fc73adf117de0c97376626ef9c34bbfec4fe18e1fe0b96321cae","payload":{"aps":{"alert":"Hi there!","sound":"default"},"weather":"It will be sunny today"},"identifier":"0507e79b","expires":"2015-10-22T10:00:00+02:00","priority":10}"#
            )
            // The answer waited for APNs's: the notification is there already.
            let sent = try #require(bed.simulator.accepted().first)
            #expect(sent.token == "b8e0c9ce2114fc73adf117de0c97376626ef9c34bbfec4fe18e1fe0b96321cae")
            #expect(sent.body == #"{"aps":{"alert":"Hi there!","sound":"default"},"weather":"It will be sunny today"}"#)
            #expect(sent.header("apns-priority") == "10")
            #expect(sent.header("apns-push-type") == "alert")
            #expect(sent.header("apns-expiration") == "1445500800")
            #expect(sent.header("apns-topic") == bed.topic)

            // Without an identifier one is generated; without expires and priority, neither is echoed nor sent.
            let bare = try await notify(
                port,
                #"{"deviceToken":"b8e0c9ce2114fc73adf117de0c97376626ef9c34bbfec4fe18e1fe0b96321cae","payload":{"aps":{"alert":"Hi there!","sound":"default"},"customValues":{"weather":"It will be sunny today"}}}"#
            )
            #expect(bare.status == 202)
            let prefix = #"{"deviceToken":"b8e0c9ce2114fc73adf117de0c97376626ef9c34bbfec4fe18e1fe0b96321cae","payload":{"aps":{"alert":"Hi there!","sound":"default"},"weather":"It will be sunny today"},"identifier":""#
            #expect(bare.body.hasPrefix(prefix))
            let identifier = bare.body.dropFirst(prefix.count).dropLast(2)
            #expect(identifier.count == 8 && identifier.allSatisfy { "0123456789abcdef".contains($0) }, "\(bare.body)")
            #expect(bare.body.hasSuffix("\"}"))
            let second = try #require(bed.simulator.accepted().last)
            #expect(second.header("apns-expiration") == nil)
            #expect(second.header("apns-priority") == "10", "derived from the alert")
        }
    }

    @Test func thePayloadFollowsGoEncodingAndHeraldsRules() async throws {
        try await withApnsMS { herald, bed, port in
            // compat.md §4.6's full alert dictionary.
            let full = #"""
                {"deviceToken":"\#(APNsTestBed.token(1))","identifier":"00000001","payload":{
                 "aps":{"alert":{"title":"Hi!","body":"Hello World :)","title-loc-key":"_THE_TITLE_","title-loc-args":["ARG1"],
                 "action-loc-key":"_THE_ACTION_","loc-key":"_THE_BODY_","loc-args":["ARG1","ARG2","ARG3","ARG4"],"launch-image":"image.png"},
                 "badge":123,"sound":"default","content-available":1,"category":"category"},
                 "customValues":{"abc":"def"}}}
                """#
            #expect(try await notify(port, full).status == 202)
            #expect(
                bed.simulator.accepted().last?.body
                    == #"{"abc":"def","aps":{"alert":{"title":"Hi!","body":"Hello World :)","title-loc-key":"_THE_TITLE_","title-loc-args":["ARG1"],"action-loc-key":"_THE_ACTION_","loc-key":"_THE_BODY_","loc-args":["ARG1","ARG2","ARG3","ARG4"],"launch-image":"image.png"},"badge":123,"sound":"default","content-available":1,"category":"category"}}"#
            )

            // Keys matched case-insensitively, an exact match winning; badge 0 kept; empty keys left out;
            // custom values re-encoded as Go does; what follows the first JSON value ignored.
            let mixed = #"""
                {"DEVICETOKEN":"\#(APNsTestBed.token(2).uppercased())","Identifier":"0000000A","identifier":"000000ab","PAYLOAD":{
                 "Aps":{"ALERT":{"Title":"","body":"b","loc-args":[]},"badge":0,"sound":"","Content-Available":0,"x":1},
                 "customValues":{"z":{"b":1.0,"a":[1e21,0.0000001,"<&>\u2028"],"B":null},"abc":12345678901234567890,"Aps":true}}} trailing {
                """#
            let response = try await notify(port, mixed)
            #expect(response.status == 202, "\(response.body)")
            let payload = #"{"Aps":true,"abc":12345678901234567000,"aps":{"alert":{"body":"b"},"badge":0},"z":{"B":null,"a":[1e+21,1e-7,"\u003c\u0026\u003e\u2028"],"b":1}}"#
            #expect(response.body == #"{"deviceToken":"\#(APNsTestBed.token(2).uppercased())","payload":\#(payload),"identifier":"000000ab"}"#)
            let sent = try #require(bed.simulator.accepted().last)
            #expect(sent.token == APNsTestBed.token(2))
            #expect(sent.body == payload)
            #expect(sent.header("apns-push-type") == "alert")
            #expect(sent.header("apns-priority") == "10", "a badge alerts")

            // A background notification gets priority 5 whatever is asked; a negative expiry is 0.
            let background = #"{"deviceToken":"\#(APNsTestBed.token(3))","payload":{"aps":{"content-available":1}},"priority":10,"expires":"1969-12-31T23:59:59.500-00:00"}"#
            let quiet = try await notify(port, background)
            #expect(quiet.status == 202)
            #expect(quiet.body.hasSuffix(#","expires":"1969-12-31T23:59:59.5Z","priority":10}"#), "\(quiet.body)")
            let silent = try #require(bed.simulator.accepted().last)
            #expect(silent.body == #"{"aps":{"content-available":1}}"#)
            #expect(silent.header("apns-push-type") == "background")
            #expect(silent.header("apns-priority") == "5")
            #expect(silent.header("apns-expiration") == "0")

            // No payload at all: an empty aps (apns-ms sent `"alert":{}`).
            let empty = try await notify(port, #"{"deviceToken":"\#(APNsTestBed.token(4))","identifier":"01020304"}"#)
            #expect(empty.body == #"{"deviceToken":"\#(APNsTestBed.token(4))","payload":{"aps":{}},"identifier":"01020304"}"#)
            #expect(bed.simulator.accepted().last?.header("apns-priority") == "5")
        }
    }

    /// compat.md §4.3's checks, in order, with their exact answers; nothing reaches APNs.
    @Test func invalidNotificationsAreRefusedWithApnsMSTexts() async throws {
        let token = APNsTestBed.token(1)
        let big = String(repeating: "x", count: 4100)
        let cases: [(String, String)] = [
            ("", #"{"error":"Notification data is missing"}"#),
            (" \r\n\t ", #"{"error":"Notification data is missing"}"#),
            (#"{"deviceToken":"#, #"{"error":"unexpected EOF"}"#),
            ("hello", #"{"error":"invalid character 'h' looking for beginning of value"}"#),
            (#"{"a" 1}"#, #"{"error":"invalid character '1' after object key"}"#),
            (#"{"priority":01}"#, #"{"error":"invalid character '1' after object key:value pair"}"#),
            (#"{"priority":"10"}"#, #"{"error":"json: cannot unmarshal string into Go value of type uint8"}"#),
            (#"{"priority":256}"#, #"{"error":"json: cannot unmarshal number 256 into Go value of type uint8"}"#),
            (#"{"payload":{"aps":{"badge":1.5}}}"#, #"{"error":"json: cannot unmarshal number 1.5 into Go value of type int"}"#),
            (#"{"deviceToken":12,"priority":"x"}"#, #"{"error":"json: cannot unmarshal number into Go value of type string"}"#),
            (#"{"payload":{"customValues":[]}}"#, #"{"error":"json: cannot unmarshal array into Go value of type map[string]interface {}"}"#),
            (#"{"payload":{"aps":{"alert":5}}}"#, #"{"error":"apns/notification: Invalid alert dictionary format"}"#),
            (#"{"payload":{"aps":{"alert":{"title":7}}}}"#, #"{"error":"apns/notification: Invalid alert dictionary format"}"#),
            (#"{"payload":{"aps":{"alert":{"loc-args":[1]}}}}"#, #"{"error":"apns/notification: Invalid alert dictionary format"}"#),
            (#"{"deviceToken":"abc"}"#, #"{"error":"apns/notification: Device token should be hex encoded 32 bytes long binary string"}"#),
            (#"{"deviceToken":"zz"}"#, #"{"error":"apns/notification: Device token should be hex encoded 32 bytes long binary string"}"#),
            (#"{}"#, #"{"error":"apns/notification: Device token length is 0 bytes but should be 32 bytes"}"#),
            (#"{"deviceToken":"\#(token)00"}"#, #"{"error":"apns/notification: Device token length is 33 bytes but should be 32 bytes"}"#),
            (#"{"deviceToken":"\#(token)","identifier":"xyzw1234"}"#,
             #"{"error":"apns/notification: Notification identifier should be hex encoded 4 bytes long binary string"}"#),
            (#"{"deviceToken":"\#(token)","identifier":"0102"}"#,
             #"{"error":"apns/notification: Notification identifier length is 2 bytes but should be 4 bytes"}"#),
            (#"{"deviceToken":"\#(token)","payload":{"customValues":{"aps":1}}}"#,
             #"{"error":"json: error calling MarshalJSON for type *apns.Payload: apns/notification: 'aps' is a reserved and cannot be used for custom field"}"#),
            (#"{"deviceToken":"\#(token)","payload":{"aps":{"alert":"\#(big)"}}}"#,
             #"{"error":"apns/notification: Notification payload size is 4120 bytes but should be 4096 bytes at maximum"}"#),
        ]
        try await withApnsMS { herald, bed, port in
            for (body, expected) in cases {
                let response = try await notify(port, body)
                #expect(response.status == 409, "\(body)")
                #expect(response.body == expected, "\(body)")
                #expect(response.header("Content-Type") == "application/json; charset=utf8")
            }
            // Query strings are ignored.
            #expect(try await request(port, "POST", "/notification?x=1", body: "").body == #"{"error":"Notification data is missing"}"#)
            #expect(bed.simulator.requestCount == 0)
            #expect(try await herald.application.store.counts().retries == 0)
        }
    }

    /// compat.md §4.3: APNs's answer to the one attempt, as the binary protocol's status text.
    @Test func apnsRefusalsAnswerWithTheLegacyTexts() async throws {
        let injections: [(APNsSimulator.Injection, String)] = [
            (.error(status: 400, reason: "BadDeviceToken"), "Invalid token"),
            (.error(status: 400, reason: "DeviceTokenNotForTopic"), "Invalid token"),
            (.error(status: 400, reason: "MissingTopic"), "Missing topic"),
            (.error(status: 400, reason: "PayloadEmpty"), "Missing payload"),
            (.error(status: 413, reason: "PayloadTooLarge"), "Invalid payload size"),
            (.internalServerError, "Processing error"),
            (.serviceUnavailable, "Processing error"),
            (.tooManyRequests(), "Processing error"),
            (.shutdown, "Shutdown"),
            (.error(status: 400, reason: "BadExpirationDate"), "Unknown"),
        ]
        try await withApnsMS { herald, bed, port in
            // A first notification opens the connection (TLS, the provider token), so that each
            // refusal below is answered within apns-ms's 5 s even on a machine busy with other tests.
            #expect(try await notify(port, Self.notification(token: APNsTestBed.token(99), identifier: "0000ffff")).status == 202)
            for (index, (injection, text)) in injections.enumerated() {
                bed.simulator.injectNext([injection])
                let identifier = String(format: "%08x", index)
                let response = try await notify(port, Self.notification(token: APNsTestBed.token(index + 1), identifier: identifier))
                #expect(response.status == 409, "\(injection)")
                #expect(response.body == #"{"error":"apns: \#(text) for notification #\#(identifier)"}"#)
            }
            // Not retried: one request each (and the first, accepted).
            #expect(bed.simulator.requestCount == injections.count + 1)
            #expect(bed.simulator.acceptedCount == 1)
            // A token APNs says is gone.
            let gone = APNsTestBed.token(50)
            bed.simulator.unregister(token: gone, at: Int64(Date().timeIntervalSince1970 * 1000) - 1000)
            let response = try await notify(port, Self.notification(token: gone.uppercased(), identifier: "DEADBEEF"))
            #expect(response.body == #"{"error":"apns: Invalid token for notification #DEADBEEF"}"#)
            try await eventually { try await herald.application.store.counts().retries == 0 }
        }
    }

    @Test func aConnectionFailureAnswersAsTheWorker() async throws {
        try await withApnsMS { _, bed, port in
            // A first notification opens the connection (TLS, the provider token), so that the
            // reset below is answered within apns-ms's 5 s even on a machine busy with other tests.
            #expect(try await notify(port, Self.notification(token: APNsTestBed.token(99), identifier: "0000fffe")).status == 202)
            bed.simulator.injectNext([.resetConnection])
            let response = try await notify(port, Self.notification())
            #expect(response.status == 409)
            #expect(response.body.hasPrefix(#"{"error":"apns/worker: the connection closed"#), "\(response.body)")
            #expect(bed.simulator.acceptedCount == 1)
            bed.simulator.injectNext([.goAway(reason: "Shutdown")])
            let goAway = try await notify(port, Self.notification(identifier: "0000000f"))
            // A GOAWAY that leaves the request out of what APNs processed: the pool sends it again
            // on a new connection, and that answer is the client's.
            #expect(goAway.status == 202)
            #expect(bed.simulator.acceptedCount == 2)
        }
    }

    @Test func noAnswerWithinTheWaitIsAccepted() async throws {
        try await withApnsMS(extra: "") { herald, bed, port in
            bed.simulator.injectNext([.hang])
            let response = try await notify(port, Self.notification(identifier: "0a0b0c0d"))
            #expect(response.status == 202)
            #expect(response.body == #"{"deviceToken":"\#(APNsTestBed.token(1))","payload":{"aps":{"alert":"x"}},"identifier":"0a0b0c0d"}"#)
            #expect(bed.simulator.acceptedCount == 0, "APNs is still holding it")
            #expect(try await herald.application.store.counts().retries == 1, "it is still queued, its outcome recorded when it comes")
        }
    }

    @Test func expiredDevicesAreHandedOutOnce() async throws {
        try await withApnsMS { herald, bed, port in
            #expect(try await request(port, "GET", "/expired-devices").body == #"{"devices":[]}"#)
            // Opens the connection first, so the refusals below come within apns-ms's 5 s wait.
            #expect(try await notify(port, Self.notification(token: APNsTestBed.token(99), identifier: "0000fffd")).status == 202)
            let unregistered = APNsTestBed.token(1)
            let since: Int64 = 1_445_423_551_789  // 2015-10-21T10:32:31.789Z
            bed.simulator.unregister(token: unregistered, at: since)
            #expect(try await notify(port, Self.notification(token: unregistered.uppercased())).status == 409)
            let bad = APNsTestBed.token(2)
            bed.simulator.injectNext([.error(status: 400, reason: "BadDeviceToken")])
            let before = Int64(Date().timeIntervalSince1970)
            #expect(try await notify(port, Self.notification(token: bad)).status == 409)
            let after = Int64(Date().timeIntervalSince1970) + 1
            // Failures of other kinds are no expired devices.
            bed.simulator.injectNext([.internalServerError])
            #expect(try await notify(port, Self.notification(token: APNsTestBed.token(3))).status == 409)
            try await eventually { try await herald.application.store.counts().retries == 0 }
            // A send through another front-end is not apns-ms's.
            bed.simulator.unregister(token: APNsTestBed.token(4), at: since)
            #expect(try await herald.request(.POST, "/send", json: #"{"proto":"apns","tokens":["\#(APNsTestBed.token(4))"],"payload":{}}"#).status == 202)
            try await eventually { try await RawSendTests.entries(herald, "/feedback").count == 4 }

            let response = try await request(port, "GET", "/expired-devices?since=0")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json; charset=utf8")
            let devices = try #require((try Fixtures.json(response.body) as? [String: Any])?["devices"] as? [[String: String]])
            #expect(devices.map { $0["deviceToken"] } == [unregistered, bad], "oldest first")
            #expect(response.body.contains(#"{"timestamp":""#), "timestamp first")
            let formatter = ISO8601DateFormatter()
            let timestamps = devices.compactMap { $0["timestamp"].flatMap(formatter.date(from:)) }.map { Int64($0.timeIntervalSince1970) }
            #expect(timestamps.count == 2)
            #expect(timestamps.first == since / 1000, "APNs's timestamp, truncated to seconds")
            #expect(timestamps.last.map { (before...after).contains($0) } == true, "when Herald got the answer")
            if TimeZone.current.secondsFromGMT() == 0 {
                #expect(devices.first?["timestamp"] == "2015-10-21T10:32:31Z")
            }
            #expect(try await request(port, "GET", "/expired-devices").body == #"{"devices":[]}"#, "each is handed out once")
        }
    }

    @Test func otherMethodsAndPathsGetGosAnswers() async throws {
        try await withApnsMS { _, bed, port in
            for (method, path) in [("GET", "/notification"), ("PUT", "/notification"), ("POST", "/expired-devices"), ("HEAD", "/expired-devices")] {
                let response = try await request(port, method, path)
                #expect(response.status == 405, "\(method) \(path)")
                #expect(response.body == "")
                #expect(response.header("Content-Type") == "application/json; charset=utf8")
            }
            for (method, path) in [("POST", "/notification/"), ("GET", "/"), ("GET", "/expired-devices/x"), ("POST", "/Notification")] {
                let response = try await request(port, method, path, body: method == "POST" ? Self.notification() : nil)
                #expect(response.status == 404, "\(method) \(path)")
                #expect(response.body == "404 page not found\n")
                #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            }
            #expect(bed.simulator.requestCount == 0)
        }
    }

    @Test func sourcesOutsideThePublishACLAreRefused() async throws {
        let acl = """
            server:
              acl:
                publish: [10.0.0.0/8]

            """
        try await withApnsMS(extra: acl) { _, bed, port in
            let refused = try await notify(port, Self.notification())
            #expect(refused.status == 403)
            #expect(refused.body == #"{"error":"Unauthorized"}"#)
            #expect(try await request(port, "GET", "/expired-devices").body == #"{"error":"Unauthorized"}"#)
            #expect(bed.simulator.requestCount == 0)
        }
    }

    @Test func aFullBacklogAnswersThatTheQueueIsFull() async throws {
        // APNs holds the first notification unanswered, so it stays in the backlog; the bound is 1.
        let extra = "delivery:\n  max_backlog: 1\n"
        try await withAPNsHerald(options: ["request_timeout: 120"], extra: Self.compat + extra) { herald, bed in
            let port = try #require(herald.frontEndPorts["apns_ms"])
            bed.simulator.injectNext([.hang])
            // The first waits out its 5 s and is accepted; the backlog is sampled, so a few more may pass.
            var refusal: RawResponse?
            for n in 1...100 where refusal == nil {
                let response = try await notify(port, Self.notification(token: APNsTestBed.token(n)))
                if response.status == 202 {
                    try await Task.sleep(for: .milliseconds(50))
                } else {
                    refusal = response
                }
            }
            let refused = try #require(refusal)
            #expect(refused.status == 503)
            #expect(refused.body == #"{"error":"apns: Queue is full, dismissing command"}"#)
            #expect(refused.header("Content-Type") == "application/json; charset=utf8")
            // Check 4 comes before the token's (5): a bad token meets the full queue first.
            let badToken = try await notify(port, Self.notification(token: "xyz"))
            #expect(badToken.status == 503)
            #expect(badToken.body == #"{"error":"apns: Queue is full, dismissing command"}"#)
        }
    }
}
