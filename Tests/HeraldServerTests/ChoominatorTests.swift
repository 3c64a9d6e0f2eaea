import Foundation
import HeraldSimulators
import HeraldTestSupport
import NIOCore
import NIOPosix
import Testing

/// The Choominator/CodexTextor pushd stand-in (compat.md §5): real JSON datagrams to both UDP ports,
/// deliveries to the APNs simulator over TLS + HTTP/2.
@Suite struct ChoominatorTests {
    static let compat = """
        delivery:
          retry_delay: 0.01
          max_retry_delay: 0.05
          max_attempts: 3
        compat:
          choominator: {provider: apns}

        """

    /// Runs `body` with an APNs simulator and a Herald whose Choominator ports are bound.
    func withChoominator<T>(
        extra: String = "", directory: String? = nil, bed given: APNsTestBed? = nil, _ body: (TestHerald, APNsTestBed) async throws -> T
    ) async throws -> T {
        let bed: APNsTestBed
        if let given { bed = given } else { bed = try await APNsTestBed.start() }
        do {
            let herald = try await TestHerald.start(yaml: bed.yaml(extra: Self.compat + extra), directory: directory)
            let result: T
            do {
                result = try await body(herald, bed)
            } catch {
                try? await herald.stop()
                throw error
            }
            try await herald.stop()
            if given == nil { await bed.simulator.stop() }
            return result
        } catch {
            if given == nil { await bed.simulator.stop() }
            throw error
        }
    }

    /// Sends one datagram from an ephemeral loopback port.
    func send(_ text: String, to port: Int) async throws {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(string: text))).get()
        try await channel.close().get()
    }

    func register(_ herald: TestHerald, device: String, group: String) async throws {
        try await send(#"{"device":"\#(device)","group":"\#(group)"}"#, to: try #require(herald.frontEndPorts["choominator.registration"]))
    }

    func notify(_ herald: TestHerald, _ json: String) async throws {
        try await send(json, to: try #require(herald.frontEndPorts["choominator.notification"]))
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try Fixtures.json(text) as? [String: Any])
    }

    /// The id of the `apns` subscriber with `token`, found by registering it again over REST
    /// (idempotent: 200 for an existing subscriber).
    func existingSubscriber(_ herald: TestHerald, token: String) async throws -> String {
        let response = try await herald.request(.POST, "/subscribers", form: "proto=apns&token=\(token)")
        #expect(response.status == 200, "the datagram registered it already: \(response.body)")
        return try #require(try json(response.body)["id"] as? String)
    }

    func metric(_ herald: TestHerald, _ line: String) async throws -> Bool {
        try await herald.request(.GET, "/metrics").body.contains(line)
    }

    @Test func registrationsSubscribeTheDeviceOnceAndLeaveAnExistingSubscriptionAsItIs() async throws {
        try await withChoominator { herald, _ in
            let token = APNsTestBed.token(1)
            try await register(herald, device: token.uppercased(), group: "g1")
            try await register(herald, device: token, group: "g1")
            try await eventually { try await herald.request(.GET, "/event/g1").status == 200 }
            let id = try await existingSubscriber(herald, token: token)
            #expect(try await herald.request(.GET, "/subscriber/\(id)").body.contains(#""token":"\#(token)""#), "stored lower-cased")

            // A subscription made silent over REST stays silent when the device registers to it again.
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/g1", form: "ignore_message=1").status == 204)
            try await register(herald, device: token, group: "g1")
            try await register(herald, device: token, group: "g2")
            try await eventually { try await herald.request(.GET, "/event/g2").status == 200 }
            let subscriptions = try await herald.request(.GET, "/subscriber/\(id)/subscriptions").body
            #expect(subscriptions == #"{"g1":{"ignore_message":true},"g2":{"ignore_message":false}}"#)
            #expect(try json(try await herald.request(.GET, "/event/g1").body)["subscribers"] as? Int == 1)
            #expect(try await herald.application.store.counts().subscribers == 1)
            try await eventually { try await metric(herald, #"herald_choominator_datagrams_total{port="registration",result="accepted"} 4"#) }
        }
    }

    @Test func aNotificationReachesEveryDeviceOfTheProviderOnceWithItsHeaders() async throws {
        try await withReceiver { receiver in
            try await withChoominator { herald, bed in
                let (both, second) = (APNsTestBed.token(1), APNsTestBed.token(2))
                try await register(herald, device: both, group: "g1")
                try await register(herald, device: both, group: "g2")
                try await register(herald, device: second, group: "g2")
                // A device of another provider in the same group is not notified: the payload is APNs's.
                let webhook = try await Fixtures.register(herald, url: receiver.url("/hook"))
                #expect(try await herald.request(.POST, "/subscriber/\(webhook)/subscriptions/g1").status == 201)
                // Until the datagrams are handled the event does not exist (`null`): not an issue, only not yet.
                try await eventually { (try Fixtures.json(try await herald.request(.GET, "/event/g2").body) as? [String: Any])?["subscribers"] as? Int == 2 }

                try await notify(
                    herald,
                    #"{"groups":["g1","g2"],"group":"g1","type":"urgent","expiration":4102444800,"key":"score-update","payload":{"z":1,"aps":{"alert":"Goal!"}}}"#)
                try await eventually { bed.simulator.acceptedCount == 2 }
                try await eventually { try await herald.application.store.backlog().jobs == 0 }
                let accepted = bed.simulator.accepted()
                #expect(accepted.map(\.token).sorted() == [both, second].sorted(), "each device once")
                for request in accepted {
                    #expect(request.body == #"{"z":1,"aps":{"alert":"Goal!"}}"#, "compact, keys in their order")
                    #expect(request.header("apns-push-type") == "alert")
                    #expect(request.header("apns-priority") == "10")
                    #expect(request.header("apns-expiration") == "4102444800")
                    #expect(request.header("apns-collapse-id") == "score-update")
                    #expect(request.header("apns-topic") == bed.topic)
                }
                #expect(receiver.count == 0)
                for group in ["g1", "g2"] {
                    let statistics = try json(try await herald.request(.GET, "/event/\(group)").body)
                    #expect(statistics["total"] as? Int == 1, "\(group)")
                }
                #expect(try await metric(herald, #"herald_choominator_datagrams_total{port="notification",result="accepted"} 1"#))
            }
        }
    }

    /// compat.md §5.3's table; `apns-expiration` is always sent, 0 by default.
    @Test(arguments: [
        (#","type":"background""#, "background", "5"),
        (#","type":"normal""#, "alert", "5"),
        (#","type":"urgent""#, "alert", "10"),
        ("", "background", "5"),
    ])
    func typesMapToPushTypeAndPriority(type: String, pushType: String, priority: String) async throws {
        try await withChoominator { herald, bed in
            try await register(herald, device: APNsTestBed.token(7), group: "news")
            try await eventually { try await herald.request(.GET, "/event/news").status == 200 }
            try await notify(herald, #"{"group":"news","payload":{"aps":{"content-available":1}}\#(type)}"#)
            try await eventually { bed.simulator.acceptedCount == 1 }
            let sent = try #require(bed.simulator.accepted().first)
            #expect(sent.header("apns-push-type") == pushType)
            #expect(sent.header("apns-priority") == priority)
            #expect(sent.header("apns-expiration") == "0")
            #expect(sent.header("apns-collapse-id") == nil)
        }
    }

    @Test func invalidDatagramsAreCountedAndChangeNothing() async throws {
        try await withChoominator { herald, bed in
            let token = APNsTestBed.token(3)
            try await register(herald, device: token, group: "g1")
            try await eventually { try await herald.request(.GET, "/event/g1").status == 200 }
            let registrations: [(String, String)] = [
                (#"{"device":"\#(APNsTestBed.token(4))","group":"g1","extra":1}"#, "unknown_key"),
                (#"{"device":"\#(APNsTestBed.token(4))","group":"g1""#, "malformed_json"),
                (#"["\#(APNsTestBed.token(4))","g1"]"#, "not_an_object"),
                (#"{"device":"abc","group":"g1"}"#, "invalid_token"),
                (#"{"device":"\#(APNsTestBed.token(4))","group":"a b"}"#, "invalid_group"),
                (#"{"device":"\#(APNsTestBed.token(4))"}"#, "missing_key"),
            ]
            for (datagram, _) in registrations {
                try await send(datagram, to: try #require(herald.frontEndPorts["choominator.registration"]))
            }
            let big = String(repeating: "x", count: 4100)
            let notifications: [(String, String)] = [
                (#"{"group":"g1","payload":{"aps":{}},"type":"loud"}"#, "invalid_value"),
                (#"{"group":"g1","payload":{"aps":{}},"priority":10}"#, "unknown_key"),
                (#"{"group":"g1","payload":{"aps":{}}"#, "malformed_json"),
                (#"{"group":"g1","payload":{"aps":{}},"key":"\#(String(repeating: "k", count: 65))"}"#, "key_too_long"),
                (#"{"group":"g1","payload":{"aps":{"alert":"\#(big)"}}}"#, "payload_too_large"),
                (#"{"group":"g1"}"#, "missing_key"),
            ]
            for (datagram, _) in notifications {
                try await notify(herald, datagram)
            }
            for (port, cases) in [("registration", registrations), ("notification", notifications)] {
                var expected: [String: Int] = [:]
                for (_, reason) in cases { expected[reason, default: 0] += 1 }
                for (reason, count) in expected {
                    try await eventually {
                        try await metric(herald, #"herald_choominator_datagrams_total{port="\#(port)",reason="\#(reason)",result="rejected"} \#(count)"#)
                    }
                }
            }
            let counts = try await herald.application.store.counts()
            #expect(counts.subscribers == 1)
            #expect(counts.subscriptions == 1)
            #expect(counts.jobs == 0)
            #expect(counts.retries == 0)
            #expect(try json(try await herald.request(.GET, "/event/g1").body)["total"] as? Int == 0)
            #expect(bed.simulator.requestCount == 0)
        }
    }

    @Test func sourcesOutsideThePortsACLAreDropped() async throws {
        let acl = """
            server:
              acl:
                register: [10.0.0.0/8]
                publish: [127.0.0.0/8, "::1"]

            """
        try await withChoominator(extra: acl) { herald, bed in
            try await register(herald, device: APNsTestBed.token(5), group: "g1")
            try await eventually {
                try await metric(herald, #"herald_choominator_datagrams_total{port="registration",reason="unauthorized",result="rejected"} 1"#)
            }
            #expect(try await herald.application.store.counts().subscribers == 0)
            // The notification port follows `acl.publish`, which allows loopback.
            try await notify(herald, #"{"group":"g1","payload":{"aps":{}}}"#)
            try await eventually { try await metric(herald, #"herald_choominator_datagrams_total{port="notification",result="no_recipients"} 1"#) }
            #expect(bed.simulator.requestCount == 0)
        }
    }

    @Test func groupsSurviveARestart() async throws {
        let bed = try await APNsTestBed.start()
        let directory = TestHerald.makeTemporaryDirectory()
        let token = APNsTestBed.token(9)
        do {
            try await withChoominator(directory: directory, bed: bed) { herald, _ in
                try await register(herald, device: token, group: "kept")
                try await eventually { try await herald.request(.GET, "/event/kept").status == 200 }
            }
            try await withChoominator(directory: directory, bed: bed) { herald, bed in
                try await notify(herald, #"{"groups":["kept"],"payload":{"aps":{"alert":"again"}},"type":"normal"}"#)
                try await eventually { bed.simulator.acceptedCount == 1 }
                #expect(bed.simulator.acceptedTokens() == [token])
            }
        } catch {
            await bed.simulator.stop()
            throw error
        }
        await bed.simulator.stop()
    }
}
