import Foundation
import HeraldRedis
import HeraldSimulators
import HeraldTestSupport
import Testing

/// The suj-pusher stand-in (compat.md §2): a real `redis-server`, messages pushed on its list (and
/// published on its legacy channel) as suj-pusher's producers did, and deliveries checked at the
/// simulators, each with the credentials the message carried.
@Suite struct SujPusherTests {
    static let namespace = "test"
    static let list = "\(namespace):suj_pusher_msgs"

    /// What a test gets: Herald, the Redis server and a client connection, the APNs simulator
    /// (client-certificate authentication) and the PEM text of a certificate it trusts.
    struct Setup {
        let herald: TestHerald
        let redis: RedisTestServer
        let client: RedisConnection
        let apns: APNsTestBed
        let certificatePEM: String

        /// `LPUSH`es `message` on the list, as suj-pusher's producers do.
        func push(_ message: String) async throws {
            _ = try await client.send(["LPUSH", SujPusherTests.list, message])
        }

        /// The feedback entries of suj-pusher's deliveries.
        func feedback() async throws -> [[String: Any]] {
            try await RawSendTests.entries(herald, "/feedback?origin=suj-pusher")
        }
    }

    /// Runs `body` with Redis, an APNs simulator and a Herald taking suj-pusher messages;
    /// `compat` adds keys under `compat.suj_pusher`, `extra` top-level YAML. Simulators the test
    /// starts itself use `authority` (the one Herald trusts, through `outbound.ca_file`).
    func withSujPusher(
        authority: SimulatorCertificateAuthority? = nil, compat: [String] = [], extra: String = "", _ body: (Setup) async throws -> Void
    ) async throws {
        let authority = try authority ?? SimulatorCertificateAuthority(directory: TestHerald.makeTemporaryDirectory())
        let redis = try await RedisTestServer.start()
        let apns: APNsTestBed
        do {
            apns = try await APNsTestBed.start(certificateAuthentication: true) { $0.certificateAuthority = authority }
        } catch {
            await redis.stop()
            throw error
        }
        let client = RedisConnection(url: redis.url())
        do {
            let ca = try #require(authority.caCertificateFile)
            let certificate = try authority.issueClientCertificate(topic: apns.topic)
            let endpoint = "https://127.0.0.1:\(apns.configuration.port)"
            let yaml = """
                outbound:
                  ca_file: \(ca)
                \(extra)
                compat:
                  suj_pusher:
                    redis: redis://127.0.0.1:\(redis.port)/0
                    namespace: \(Self.namespace)
                    apns_endpoints: {production: "\(endpoint)", sandbox: "\(endpoint)"}
                \(compat.map { "    " + $0 }.joined(separator: "\n"))
                """
            try await withHerald(yaml: yaml) { herald in
                try await body(Setup(
                    herald: herald, redis: redis, client: client, apns: apns,
                    certificatePEM: certificate.certificatePEM + "\n" + certificate.privateKeyPEM))
            }
        } catch {
            await client.close()
            await apns.simulator.stop()
            await redis.stop()
            throw error
        }
        await client.close()
        await apns.simulator.stop()
        await redis.stop()
    }

    /// A JSON string literal of `text`.
    static func quoted(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    // MARK: - APNs

    @Test func anAPNsMessageIsSentWithItsOwnCertificate() async throws {
        try await withSujPusher { setup in
            let tokens = [APNsTestBed.token(1), APNsTestBed.token(2).uppercased()]
            // compat.md §2.3's example, with two tokens and no `development` (the sandbox).
            try await setup.push("""
                {"apn_ids":["\(tokens[0])","\(tokens[1])"],"cert":\(Self.quoted(setup.certificatePEM)),"data":{"aps":{"alert":"This is a message"}}}
                """)
            try await eventually { setup.apns.simulator.accepted().count == 2 }
            let accepted = setup.apns.simulator.accepted()
            #expect(Set(accepted.map { $0.token.lowercased() }) == Set(tokens.map { $0.lowercased() }))
            for request in accepted {
                #expect(request.body == #"{"aps":{"alert":"This is a message"}}"#)
                #expect(request.header("apns-topic") == setup.apns.topic, "the certificate subject's UID")
                #expect(request.header("apns-expiration") == "0", "time_to_live 0: now or never")
                #expect(request.header("apns-push-type") == "alert")
                #expect(request.header("apns-priority") == "10")
                #expect(request.headers.allSatisfy { !$0.name.hasPrefix("herald-") }, "Herald's own headers are never sent")
            }
            // Taken off the list, and nothing left in the processing list once stored.
            try await eventually { try await setup.client.send(["LLEN", Self.list]).integer == 0 }
            try await eventually { try await setup.client.send(["LLEN", "\(Self.namespace):suj_pusher_processing:0"]).integer == 0 }
        }
    }

    @Test func invalidAndDeadTokensAreRecordedAndTheOthersSent() async throws {
        try await withSujPusher { setup in
            let good = APNsTestBed.token(10)
            let dead = APNsTestBed.token(11)
            setup.apns.simulator.unregister(token: dead, at: 1_700_000_000_000)
            try await setup.push("""
                {"apn_ids":["\(good)","not-a-token","\(dead)"],"cert":\(Self.quoted(setup.certificatePEM)),"development":false,"time_to_live":3600,"data":{"aps":{"badge":3}}}
                """)
            try await eventually { setup.apns.simulator.accepted().count == 1 }
            let request = try #require(setup.apns.simulator.accepted().first)
            #expect(request.token.lowercased() == good)
            let expiration = try #require(request.header("apns-expiration").flatMap(Int64.init))
            #expect(expiration > Int64(Date().timeIntervalSince1970) + 3000, "now + time_to_live")
            try await eventually { try await setup.feedback().count == 2 }
            let entries = try await setup.feedback()
            #expect(entries.contains { $0["token"] as? String == "not-a-token" && $0["action"] as? String == "invalid" }, "\(entries)")
            #expect(entries.contains { $0["token"] as? String == dead && $0["reason"] as? String == "Unregistered" }, "\(entries)")

            // The dead token is skipped for this certificate from now on (compat.md §2.4's cache).
            let requestsBefore = setup.apns.simulator.requestCount
            try await setup.push("""
                {"apn_ids":["\(dead)","\(good)"],"cert":\(Self.quoted(setup.certificatePEM)),"development":false,"data":{"aps":{"alert":"again"}}}
                """)
            try await eventually { setup.apns.simulator.accepted().count == 2 }
            try await eventually { try await setup.feedback().count == 3 }
            #expect(setup.apns.simulator.requestCount == requestsBefore + 1, "only the good token reached APNs")
        }
    }

    @Test func badMessagesAreDroppedAndTheConsumerGoesOn() async throws {
        try await withSujPusher { setup in
            try await setup.push("this is not json")
            try await setup.push("[1,2,3]")
            // Addresses no service: logged "Could not find connection".
            try await setup.push(#"{"apn_ids":["\#(APNsTestBed.token(20))"],"data":{"aps":{}}}"#)
            // An unusable certificate: the APNs part is dropped.
            try await setup.push(#"{"apn_ids":["\#(APNsTestBed.token(21))"],"cert":"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----","data":{"aps":{}}}"#)
            // `data` of the wrong type for APNs.
            try await setup.push(#"{"apn_ids":["\#(APNsTestBed.token(22))"],"cert":\#(Self.quoted(setup.certificatePEM)),"data":"text"}"#)
            try await setup.push(#"{"apn_ids":["\#(APNsTestBed.token(23))"],"cert":\#(Self.quoted(setup.certificatePEM)),"data":{"aps":{"alert":"fine"}}}"#)
            try await eventually { setup.apns.simulator.accepted().count == 1 }
            #expect(setup.apns.simulator.accepted().first?.token.lowercased() == APNsTestBed.token(23))
            try await eventually { try await setup.client.send(["LLEN", Self.list]).integer == 0 }
            let metrics = try await setup.herald.request(.GET, "/metrics").body
            #expect(metrics.contains(#"herald_suj_pusher_messages_total{input="list",reason="bad_json",result="discarded"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"herald_suj_pusher_messages_total{input="list",result="accepted"} 1"#))
        }
    }

    @Test func theLegacyChannelCarriesMessagesAndIgnoresEcho() async throws {
        try await withSujPusher { setup in
            let channel = "\(Self.namespace):suj_pusher_queue"
            // The listener subscribes a moment after start: publish until it hears.
            try await eventually {
                _ = try await setup.client.send(["PUBLISH", channel, "ECHO"])
                return try await setup.client.send(["PUBSUB", "NUMSUB", channel]).elements?.last?.integer == 1
            }
            #expect(try await setup.client.send(["PUBLISH", channel, "ECHO"]).integer == 1)
            _ = try await setup.client.send([
                "PUBLISH", channel,
                #"{"apn_ids":["\#(APNsTestBed.token(30))"],"cert":\#(Self.quoted(setup.certificatePEM)),"data":{"aps":{"alert":"by channel"}}}"#,
            ])
            // PUSH_MSG after LPUSH, as the old producers did: the list's message is sent (once).
            try await setup.push(#"{"apn_ids":["\#(APNsTestBed.token(31))"],"cert":\#(Self.quoted(setup.certificatePEM)),"data":{"aps":{"alert":"by list"}}}"#)
            _ = try await setup.client.send(["PUBLISH", channel, "PUSH_MSG"])
            try await eventually { setup.apns.simulator.accepted().count == 2 }
            #expect(Set(setup.apns.simulator.accepted().map(\.body)) == [#"{"aps":{"alert":"by channel"}}"#, #"{"aps":{"alert":"by list"}}"#])
        }
    }

    @Test func whatAPreviousRunTookIsHandledAtStart() async throws {
        let redis = try await RedisTestServer.start()
        let client = RedisConnection(url: redis.url())
        let mpns = MPNSSimulator(configuration: .init(certificateAuthority: nil))
        do {
            _ = try await mpns.start()
            // A message a killed node had moved to its processing list but not yet stored, and one
            // still waiting on the list.
            let processing = "\(Self.namespace):suj_pusher_processing:0"
            _ = try await client.send(["LPUSH", processing, Self.wpnsMessage(channel: mpns.makeChannel(), id: "left", type: "toast", notificationClass: 2)])
            _ = try await client.send(["LPUSH", Self.list, Self.wpnsMessage(channel: mpns.makeChannel(), id: "waiting", type: "badge", notificationClass: 1)])
            let yaml = """
                compat:
                  suj_pusher: {redis: "redis://127.0.0.1:\(redis.port)/0", namespace: \(Self.namespace), wpns_endpoint: "\(mpns.origin)"}
                """
            try await withHerald(yaml: yaml) { _ in
                try await eventually { mpns.accepted().count == 2 }
                try await eventually { try await client.send(["LLEN", processing]).integer == 0 }
            }
            let accepted = mpns.accepted()
            let left = try #require(accepted.first { $0.header("X-MessageID") == "left" }, "what the previous run took")
            let waiting = try #require(accepted.first { $0.header("X-MessageID") == "waiting" })
            #expect(left.target == "toast" && left.notificationClass == 2 && left.body == Self.xml("Toast"))
            #expect(waiting.target == "token" && waiting.notificationClass == 1, "badge is sent as a tile (token) target")
            #expect(accepted.allSatisfy { $0.header("Content-Type") == "text/xml; charset=utf-8" })
        } catch {
            await mpns.stop()
            await client.close()
            await redis.stop()
            throw error
        }
        await mpns.stop()
        await client.close()
        await redis.stop()
    }

    /// A WPNS message to `channel`, with a toast (class 2) or tile (class 1) body.
    static func wpnsMessage(channel: String, id: String, type: String, notificationClass: Int) -> String {
        let body = quoted(xml(notificationClass == 2 ? "Toast" : "Tile"))
        return #"{"wpids":["\#(channel)"],"wpnotificationclass":\#(notificationClass),"wptype":"\#(type)","wpmid":"\#(id)","data":\#(body)}"#
    }

    /// A `wp:Notification` holding one `element` (`Toast`, `Tile`).
    static func xml(_ element: String) -> String {
        #"<?xml version="1.0" encoding="utf-8"?><wp:Notification xmlns:wp="WPNotification"><wp:\#(element)><wp:Text1>hi</wp:Text1></wp:\#(element)></wp:Notification>"#
    }
}

extension SujPusherTests {
    // MARK: - GCM, WNS

    @Test func gcmPartsGoThroughTheMappedFCMProviderOrTheLegacyEndpoint() async throws {
        let authority = try SimulatorCertificateAuthority(directory: TestHerald.makeTemporaryDirectory())
        let fcm = try await FCMTestBed.start()
        let legacy = GCMLegacySimulator(configuration: .init(apiKeys: ["AIza-legacy"], certificateAuthority: authority))
        do {
            _ = try await legacy.start()
            let compat = [#"api_keys: {"AIza-mapped": gcm}"#, "legacy_gcm_endpoint: \(legacy.endpoint)"]
            try await withSujPusher(authority: authority, compat: compat, extra: "providers:\n\(fcm.providerYAML)") { setup in
                let tokens = [Push2mobTests.regID("one"), Push2mobTests.regID("two")]
                try await setup.push(#"{"gcm_ids":["\#(tokens[0])","\#(tokens[1])"],"api_key":"AIza-mapped","data":{"message":"hi","count":12,"from":"me"}}"#)
                try await setup.push(#"{"gcm_ids":["legacy-1","legacy-2"],"api_key":"AIza-legacy","time_to_live":60,"data":{"k":"v"}}"#)
                try await eventually { fcm.simulator.accepted().count == 2 }
                #expect(Set(fcm.simulator.accepted().compactMap(\.token)) == Set(tokens))
                for request in fcm.simulator.accepted() {
                    // compat.md §1.3: string values, reserved keys left out, ttl "0s" (suj-pusher's "now or never").
                    #expect(request.body.contains(#""data":{"message":"hi","count":"12"}"#), "\(request.body)")
                    #expect(request.body.contains(#""ttl":"0s""#), "\(request.body)")
                }
                try await eventually { legacy.accepted().flatMap(\.registrationIDs).count == 2 }
                let request = try #require(legacy.accepted().first)
                #expect(request.header("Authorization") == "key=AIza-legacy", "the message's own API key")
                #expect(request.body.contains(#""time_to_live":60"#), "\(request.body)")
                #expect(request.body.contains(#""data":{"k":"v"}"#), "\(request.body)")
            }
        } catch {
            await legacy.stop()
            await fcm.simulator.stop()
            throw error
        }
        await legacy.stop()
        await fcm.simulator.stop()
    }

    @Test func wnsPartsCarryTheirHeadersAndShareOneAccessToken() async throws {
        let authority = try SimulatorCertificateAuthority(directory: TestHerald.makeTemporaryDirectory())
        let sid = "ms-app://s-1-15-2-42"
        let secret = "suj-secret"
        let wns = WNSSimulator(configuration: .init(clientID: sid, clientSecret: secret, certificateAuthority: authority))
        do {
            try await wns.start()
            try await withSujPusher(authority: authority, compat: ["wns_token_endpoint: \(wns.tokenEndpoint)"]) { setup in
                let toastChannel = wns.makeChannel(clientID: sid)
                let rawChannel = wns.makeChannel(clientID: sid)
                let toast = #"<toast><visual><binding template=\"ToastText01\"><text id=\"1\">hi</text></binding></visual></toast>"#
                try await setup.push("""
                    {"wnsids":["\(toastChannel)"],"sid":"\(sid)","secret":"\(secret)","wnstype":"wns/toast","wnscache":"cache","wnstag":"t1","time_to_live":60,"data":"\(toast)"}
                    """)
                try await setup.push("""
                    {"wnsids":["\(rawChannel)","ftp://not-a-channel"],"sid":"\(sid)","secret":"\(secret)","wnstype":"wns/raw","data":{"a":1}}
                    """)
                // An unknown type: the WNS part is dropped.
                try await setup.push(#"{"wnsids":["\#(toastChannel)"],"sid":"\#(sid)","secret":"\#(secret)","wnstype":"wns/bogus","data":"x"}"#)
                try await eventually { wns.accepted().count == 2 }
                let toastRequest = try #require(wns.accepted(channel: toastChannel).first)
                #expect(toastRequest.header("X-WNS-Type") == "wns/toast")
                #expect(toastRequest.header("X-WNS-Cache-Policy") == "cache")
                #expect(toastRequest.header("X-WNS-RequestForStatus") == "true")
                #expect(toastRequest.header("X-WNS-Tag") == "t1")
                #expect(toastRequest.header("X-WNS-TTL") == "60")
                let rawRequest = try #require(wns.accepted(channel: rawChannel).first)
                #expect(rawRequest.body == #"{"a":1}"#)
                #expect(rawRequest.header("X-WNS-Cache-Policy") == "no-cache")
                #expect(rawRequest.header("Content-Type") == "application/octet-stream")
                #expect(wns.statistics().tokenRequests == 1, "one access token for the (sid, secret), cached")
                try await eventually { try await setup.feedback().contains { $0["token"] as? String == "ftp://not-a-channel" } }
            }
        } catch {
            await wns.stop()
            throw error
        }
        await wns.stop()
    }

    // MARK: - Redis and the store

    @Test func redisGoingAwayIsRetriedAndNothingIsLost() async throws {
        try await withSujPusher { setup in
            let port = setup.redis.port
            try await setup.push(#"{"apn_ids":["\#(APNsTestBed.token(50))"],"cert":\#(Self.quoted(setup.certificatePEM)),"data":{"aps":{"alert":"before"}}}"#)
            try await eventually { setup.apns.simulator.accepted().count == 1 }
            await setup.redis.stop()
            // A while without Redis: the consumer retries with backoff and the server keeps serving.
            try await Task.sleep(for: .seconds(1))
            #expect(try await setup.herald.request(.GET, "/status").status == 204)
            let again = try await RedisTestServer.start(port: port)
            let client = RedisConnection(url: again.url())
            do {
                _ = try await client.send(["LPUSH", Self.list, #"{"apn_ids":["\#(APNsTestBed.token(51))"],"cert":\#(Self.quoted(setup.certificatePEM)),"data":{"aps":{"alert":"after"}}}"#])
                try await eventually { setup.apns.simulator.accepted().count == 2 }
                #expect(setup.apns.simulator.accepted().map(\.body).contains(#"{"aps":{"alert":"after"}}"#))
            } catch {
                await client.close()
                await again.stop()
                throw error
            }
            await client.close()
            await again.stop()
        }
    }

    @Test func deadLettersNeverShowTheCertificate() async throws {
        try await withSujPusher { setup in
            // Over APNs's 4096 bytes: a message failure, dead-lettered at once.
            let big = String(repeating: "x", count: 5000)
            try await setup.push(#"{"apn_ids":["\#(APNsTestBed.token(60))"],"cert":\#(Self.quoted(setup.certificatePEM)),"data":{"aps":{"alert":"\#(big)"}}}"#)
            try await eventually { try await RawSendTests.entries(setup.herald, "/dead-letters").count == 1 }
            let body = try await setup.herald.request(.GET, "/dead-letters").body
            #expect(body.contains(#""herald-credential-apns-certificate":"***""#), "\(body.prefix(500))")
            #expect(!body.contains("PRIVATE KEY"))
            #expect(!body.contains("BEGIN CERTIFICATE"))
        }
    }
}
