import Foundation
import HeraldCore
import HeraldCompatPush2mob
import HeraldSimulators
import HeraldTestSupport
import HeraldZeroMQ
import Logging
import Testing

/// The push2mob stand-in (compat.md §3): real ZeroMQ REQ sockets to Herald's two REP sockets,
/// deliveries to the APNs and FCM simulators.
@Suite struct Push2mobTests {
    /// compat.md §3.3's first example token (base64) and the two hex ones.
    static let base64Token = "oplo1dgXSxYT5jGmD/L3XjVSRHCT1EkMLBk+/xp5HAY="
    static let hexTokens = [
        "DDE37D652A87B72516D51117B45980852A22CEFAB57ABF84ED11F937ED621007",
        "7B168DB2D8F3EBAE6A0235AFF7CEDAC279ECBA6DDE83099816383E94B3B2020C",
    ]
    static let examplePayload = #"{"aps":{"alert":"hello","aid":"example"}}"#

    /// A REQ socket connected to one of Herald's push2mob sockets.
    final class Client: Sendable {
        let context: ZeroMQContext
        let socket: ZeroMQSocket

        init(port: Int) async throws {
            context = try ZeroMQContext()
            socket = try ZeroMQSocket(.request, context: context, name: "push2mob-test-client")
            try await socket.connect("tcp://127.0.0.1:\(port)")
        }

        /// Sends `text` and returns the reply's text.
        func ask(_ text: String) async throws -> String {
            try await ask(Array(text.utf8))
        }

        /// Sends `bytes` and returns the reply's text.
        func ask(_ bytes: [UInt8]) async throws -> String {
            String(decoding: try await socket.request(bytes, timeout: .seconds(60)), as: UTF8.self)
        }

        func close() async {
            await socket.close()
            await context.terminate()
        }
    }

    /// Runs `body` with an APNs simulator and a Herald whose push2mob APNs socket is bound.
    func withAPNsSocket(format: String = "base64", extra: String = "", _ body: (TestHerald, APNsTestBed, Client) async throws -> Void) async throws {
        let compat = "compat:\n  push2mob: {apns_provider: apns, device_token_format: \(format)}\n" + extra
        try await withAPNsHerald(extra: compat) { herald, bed in
            let client = try await Client(port: try #require(herald.frontEndPorts["push2mob.apns"]))
            do {
                try await body(herald, bed, client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        }
    }

    /// Runs `body` with an FCM simulator and a Herald whose push2mob GCM socket is bound.
    func withGCMSocket(_ body: (TestHerald, FCMTestBed, Client) async throws -> Void) async throws {
        let bed = try await FCMTestBed.start()
        do {
            let yaml = "providers:\n\(bed.providerYAML)\ncompat:\n  push2mob: {gcm_provider: gcm}\n"
            try await withHerald(yaml: yaml) { herald in
                let client = try await Client(port: try #require(herald.frontEndPorts["push2mob.gcm"]))
                do {
                    try await body(herald, bed, client)
                } catch {
                    await client.close()
                    throw error
                }
                await client.close()
            }
        } catch {
            await bed.simulator.stop()
            throw error
        }
        await bed.simulator.stop()
    }

    /// The ids of an `OK <id> ...` reply.
    func ids(_ reply: String) throws -> [Int64] {
        #expect(reply.hasPrefix("OK "), "\(reply)")
        return try reply.split(separator: " ").dropFirst().map { try #require(Int64($0)) }
    }

    /// A registration id the FCM simulator takes (long enough, FCM's alphabet), named `name`.
    static func regID(_ name: String) -> String {
        name + "_" + String(repeating: "A", count: 140)
    }

    static func hex(_ base64: String) -> String {
        Data(base64Encoded: base64)!.map { String(format: "%02x", $0) }.joined()
    }

    static func base64(_ hex: String) -> String { APNsTestBed.base64(hex: hex) }

    // MARK: - APNs socket

    @Test func theAPNsExamplesAreQueuedAndDelivered() async throws {
        try await withAPNsSocket { herald, bed, client in
            let first = try ids(try await client.ask("send 1343727824 1 \(Self.base64Token) \(Self.examplePayload)"))
            #expect(first.count == 1)
            #expect((0..<(Int64(1) << 32)).contains(first[0]), "the counter starts in [0, 2^32)")
            let second = try ids(try await client.ask("send +604800 2 \(Self.hexTokens.joined(separator: " ")) \(Self.examplePayload)"))
            #expect(second == [first[0] + 1, first[0] + 2], "consecutive, one per token, in token order")
            #expect(try await client.ask("send +2419200 1 DEADBEEF {\"aps\":{\"alert\":\"hello\"}}") == "ERROR Wrong device token length (6 != 32): DEADBEEF")
            #expect(try await client.ask("send 1343727824 1 \(Self.base64Token) hello") == "ERROR Invalid JSON payload: hello")

            let expected = [Self.hex(Self.base64Token)] + Self.hexTokens.map { $0.lowercased() }
            try await eventually { Set(bed.simulator.accepted().map(\.token)) == Set(expected) }
            let accepted = bed.simulator.accepted()
            #expect(accepted.count == 3)
            #expect(accepted.allSatisfy { $0.body == Self.examplePayload }, "the payload exactly as received")
            let past = try #require(accepted.first { $0.token == expected[0] })
            #expect(past.header("apns-expiration") == "0", "an expiry in the past: APNs tries once")
            #expect(past.header("apns-topic") == bed.topic)
            #expect(past.header("apns-push-type") == "alert")
            let future = try #require(accepted.first { $0.token == expected[1] })
            let expiration = try #require(future.header("apns-expiration").flatMap { Int64($0) })
            #expect(expiration > Int64(Date().timeIntervalSince1970), "+604800 is now + a week")
            _ = herald
        }
    }

    @Test func everyAPNsRefusalIsAnsweredAndNothingIsQueued() async throws {
        try await withAPNsSocket { herald, bed, client in
            let token = Self.hexTokens[0]
            let payload = #"{"aps":{"alert":"x"}}"#
            let long = #"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#
            let cases: [(String, String)] = [
                ("send", "ERROR Invalid input"),
                ("send ", "ERROR Invalid input"),
                ("hello", "ERROR Invalid input"),
                ("send 1", "ERROR Invalid input (wrong number of arguments)"),
                ("send +10 x \(token) \(payload)", "ERROR Invalid input (invalid literal for int() with base 10: 'x')"),
                ("send +10 0 \(token) \(payload)", "ERROR Invalid input (wrong number of arguments)"),
                ("send +10 -1 \(token) \(payload)", "ERROR Invalid input (wrong number of arguments)"),
                ("send +10 2 \(token) \(payload)", "ERROR Invalid input (wrong number of arguments)"),
                ("send +10 1 \(token)", "ERROR Invalid input (wrong number of arguments)"),
                ("send tomorrow 1 \(token) \(payload)", "ERROR Invalid expiry value: tomorrow"),
                ("send 1+1 1 \(token) \(payload)", "ERROR Invalid expiry value: 1+1"),
                ("send +10 1 \(token.prefix(10))ZZ\(token.dropFirst(12)) \(payload)", "ERROR Invalid input (invalid literal for int() with base 16: 'ZZ')"),
                ("send +10 1 abc! \(payload)", "ERROR Wrong base64 encoding for device token: abc!"),
                ("send +10 1 oplo1dgXSxYT5jGmD/L3XjVSRHCT1EkMLBk+/xp5HAY \(payload)", "ERROR Wrong base64 encoding for device token: oplo1dgXSxYT5jGmD/L3XjVSRHCT1EkMLBk+/xp5HAY"),
                ("send +10 2 \(token) AAAA \(payload)", "ERROR Wrong device token length (3 != 32): AAAA"),
                ("send +10 1 \(token) \(long)", "ERROR Payload too long (\(long.utf8.count) > 4096)"),
                ("send +10 1 \(token) [1,2]", "ERROR Invalid JSON payload: [1,2]"),
                ("send +10 1 \(token) {\"aps\": oops}", "ERROR Invalid JSON payload: {\"aps\": oops}"),
            ]
            for (request, reply) in cases {
                #expect(try await client.ask(request) == reply, "\(request)")
            }
            #expect(try await client.ask([0x73, 0x65, 0x6E, 0x64, 0x20, 0xFF, 0xFE]) == "ERROR Invalid input", "not UTF-8")
            #expect(try await herald.application.store.counts().retries == 0, "nothing was queued")
            // The socket keeps serving; several spaces between fields, any case, surrounding white space.
            let reply = try await client.ask("  SeNd   +60   1   \(token.lowercased())   {\"aps\": {\"alert\": \"a b  c\"}}\n")
            #expect(try ids(reply).count == 1)
            try await eventually { bed.simulator.accepted().count == 1 }
            #expect(bed.simulator.accepted().first?.body == #"{"aps": {"alert": "a b  c"}}"#, "the payload is the rest of the text, spaces and all")
            #expect(try await client.ask("feedback please") == "OK", "anything after feedback is ignored")
            let metrics = try await herald.request(.GET, "/metrics").body
            for line in [
                #"herald_push2mob_requests_total{socket="apns",result="sent"} 1"#,
                #"herald_push2mob_requests_total{socket="apns",result="feedback"} 1"#,
                #"herald_push2mob_requests_total{socket="apns",reason="invalid_input",result="refused"} 4"#,
                #"herald_push2mob_requests_total{socket="apns",reason="invalid_token",result="refused"} 4"#,
            ] {
                #expect(metrics.contains(line), "\(line)")
            }
        }
    }

    @Test func apnsFeedbackReturnsDeadTokensOnceInBase64() async throws {
        try await withAPNsSocket { herald, bed, client in
            #expect(try await client.ask("feedback") == "OK")
            let unregistered = APNsTestBed.token(1)
            let since: Int64 = 1_344_433_059_789
            bed.simulator.unregister(token: unregistered, at: since)
            let bad = APNsTestBed.token(2)
            bed.simulator.markBadToken(bad)
            let fine = APNsTestBed.token(3)
            _ = try ids(try await client.ask("send +3600 3 \(unregistered) \(Self.base64(bad)) \(fine) {\"aps\":{\"alert\":\"x\"}}"))
            try await eventually { try await RawSendTests.entries(herald, "/feedback").count == 2 }
            let reply = try await client.ask("feedback")
            let entries = reply.split(separator: " ").dropFirst().map(String.init)
            #expect(reply.hasPrefix("OK "))
            #expect(Set(entries) == ["1344433059:\(Self.base64(unregistered))", "0:\(Self.base64(bad))"], "\(reply)")
            #expect(entries.allSatisfy { $0.split(separator: ":")[1].count == 44 })
            #expect(try await client.ask("feedback") == "OK", "each entry is returned once")
        }
    }

    @Test func apnsFeedbackInHex() async throws {
        try await withAPNsSocket(format: "hex") { herald, bed, client in
            let unregistered = APNsTestBed.token(7)
            bed.simulator.unregister(token: unregistered, at: 1_344_498_238_000)
            _ = try ids(try await client.ask("send +3600 1 \(unregistered.uppercased()) {\"aps\":{\"alert\":\"x\"}}"))
            try await eventually { try await RawSendTests.entries(herald, "/feedback").count == 1 }
            #expect(try await client.ask("FEEDBACK") == "OK 1344498238:\(unregistered)")
            #expect(try await client.ask("feedback") == "OK")
        }
    }

    @Test func anAddressOutsideThePublishACLIsRefused() async throws {
        try await withAPNsSocket(extra: "server:\n  acl:\n    publish: [10.0.0.0/8]\n") { herald, _, client in
            let send = try await client.ask("send +10 1 \(Self.hexTokens[0]) {}")
            #expect(send == "ERROR Unauthorized")
            let feedback = try await client.ask("feedback")
            #expect(feedback == "ERROR Unauthorized")
            let queued = try await herald.application.store.counts().retries
            #expect(queued == 0)
        }
    }

    // MARK: - GCM socket

    @Test func gcmSendsDataThroughFCMWithOneIDPerChunk() async throws {
        try await withGCMSocket { herald, bed, client in
            let (one, two) = (Self.regID("reg-1"), Self.regID("reg-2"))
            let first = try ids(try await client.ask(#"send news +3600 nodelayidle 2 \#(one) \#(two) {"k":"v w","n":12,"o":{"a":1},"from":"x"}"#))
            #expect(first.count == 1)
            try await eventually { Set(bed.simulator.acceptedTokens()) == [one, two] }
            let message = try #require(bed.simulator.accepted().first)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(message.body.utf8)) as? [String: Any])
            let sent = try #require(body["message"] as? [String: Any])
            #expect(sent["data"] as? [String: String] == ["k": "v w", "n": "12", "o": #"{"a":1}"#], "strings; reserved keys left out")
            let android = try #require(sent["android"] as? [String: Any])
            #expect(android["collapse_key"] as? String == "news")
            #expect(android["ttl"] as? String == "3600s")

            let many = (0..<1001).map { Self.regID("bulk-\($0)") }
            let second = try ids(try await client.ask("send k +600 delayidle 1001 \(many.joined(separator: " ")) {\"a\":\"b\"}"))
            #expect(second == [first[0] + 1, first[0] + 2], "one id per started chunk of 1000")
            try await eventually { bed.simulator.acceptedTokens().count == 1003 }
            _ = herald
        }
    }

    @Test func everyGCMRefusalIsAnswered() async throws {
        try await withGCMSocket { herald, _, client in
            let far = Int64(Date().timeIntervalSince1970) + 3 * 2_419_200
            let cases: [(String, String)] = [
                ("send k +10 nodelayidle", "ERROR Invalid input (wrong number of arguments)"),
                ("send k +10 nodelayidle two a {}", "ERROR Invalid input (invalid literal for int() with base 10: 'two')"),
                ("send k +10 nodelayidle 0 a {}", "ERROR Invalid input (wrong number of arguments)"),
                ("send k +10 nodelayidle 3 a b {}", "ERROR Invalid input (wrong number of arguments)"),
                ("send k soon nodelayidle 1 a {}", "ERROR Invalid expiry value: soon"),
                ("send k \(far) nodelayidle 1 a {}", "ERROR Expiry value too high (max 2419200s in the future): \(far)"),
                ("send k +10 idle 1 a {}", "ERROR Invalid (no)delayidle value: idle"),
                ("send k +10 nodelayidle 1 a {\"x\":\"\(String(repeating: "y", count: 4096))\"}", "ERROR Payload too long (4104 > 4096)"),
                ("send k +10 nodelayidle 1 a hello world", "ERROR Invalid JSON payload: hello world"),
                ("send k +10 nodelayidle 1 a \"text\"", "ERROR Invalid JSON payload: \"text\""),
                ("what", "ERROR Invalid input"),
            ]
            for (request, expected) in cases {
                let reply = try await client.ask(request)
                #expect(reply == expected, "\(request)")
            }
            let queued = try await herald.application.store.counts().retries
            #expect(queued == 0, "nothing was queued")
            let feedback = try await client.ask("feedback")
            #expect(feedback == "OK", "the socket keeps serving")
        }
    }

    @Test func gcmFeedbackFiltersThenReturnsEachEntryOnce() async throws {
        try await withGCMSocket { herald, bed, client in
            let (gone, other, fine, later) = (Self.regID("gone-1"), Self.regID("other-sender"), Self.regID("fine-1"), Self.regID("fine-2"))
            bed.simulator.unregister(token: gone)
            bed.simulator.markSenderMismatch(token: other)
            _ = try ids(try await client.ask(#"send k +600 nodelayidle 3 \#(gone) \#(other) \#(fine) {"a":"b"}"#))
            try await eventually { try await RawSendTests.entries(herald, "/feedback").count == 2 }
            // Not returned by feedback yet: filtered out.
            let refused = try await client.ask(#"send k +600 nodelayidle 2 \#(gone) \#(other) {"a":"b"}"#)
            #expect(refused == "ERROR All registrations IDs have been filtered out, please get feedback")
            let reply = try await client.ask("feedback")
            #expect(reply.hasPrefix("OK "))
            #expect(Set(reply.split(separator: " ").dropFirst()) == ["\(gone):notregistered:", "\(other):invalid:"], "\(reply)")
            let again = try await client.ask("feedback")
            #expect(again == "OK", "each entry is returned once")
            // Returned just now: still filtered for 10 seconds, the others go through.
            let filtered = try ids(try await client.ask(#"send k +600 nodelayidle 2 \#(gone) \#(later) {"a":"b"}"#))
            #expect(filtered.count == 1)
            try await eventually { bed.simulator.acceptedTokens().contains(later) }
            #expect(bed.simulator.requestCount == 4, "the filtered id was not sent again")
        }
    }

    @Test func gcmThroughALegacyGCMProviderSendsWhatPush2mobSent() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        var configuration = GCMLegacySimulator.Configuration(apiKeys: ["test-key"], certificateAuthority: authority)
        configuration.logger = Logger(label: "test.simulator.gcm", factory: { _ in SwiftLogNoOpLogHandler() })
        let simulator = GCMLegacySimulator(configuration: configuration)
        _ = try await simulator.start()
        let yaml = """
            providers:
              legacy:
                kind: gcm-legacy
                endpoint: \(simulator.endpoint)
                api_key: test-key
                ca_file: \(authority.caCertificateFile!)
                batch_delay: 0.001
            compat:
              push2mob: {gcm_provider: legacy}
            """
        do {
            try await withHerald(yaml: yaml) { herald in
                let client = try await Client(port: try #require(herald.frontEndPorts["push2mob.gcm"]))
                do {
                    simulator.unregister("gone")
                    let reply = try await client.ask(#"send scores +600 delayidle 2 alive gone {"n":12,"t":"x"}"#)
                    #expect(try ids(reply).count == 1)
                    try await eventually { try await RawSendTests.entries(herald, "/feedback").count == 1 }
                    let sent = try #require(simulator.accepted().first)
                    let body = try #require(try JSONSerialization.jsonObject(with: Data(sent.body.utf8)) as? [String: Any])
                    #expect(body["collapse_key"] as? String == "scores")
                    #expect(body["time_to_live"] as? Int == 600)
                    #expect(body["delay_while_idle"] as? Bool == true)
                    let data = try #require(body["data"] as? [String: Any])
                    #expect(data["n"] as? Int == 12, "legacy GCM takes any JSON value")
                    #expect(data["t"] as? String == "x")
                    #expect(simulator.deliveries(to: "alive") == 1)
                    let feedback = try await client.ask("feedback")
                    #expect(feedback == "OK gone:notregistered:")
                } catch {
                    await client.close()
                    throw error
                }
                await client.close()
            }
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    @Test func aProviderOfTheWrongKindIsAConfigurationError() async throws {
        let bed = try await APNsTestBed.start()
        defer { Task { await bed.simulator.stop() } }
        do {
            let herald = try await TestHerald.start(yaml: bed.yaml(extra: "compat:\n  push2mob: {gcm_provider: apns}\n"))
            try await herald.stop()
            Issue.record("an apns provider behind the GCM socket was accepted")
        } catch let error as ConfigurationError {
            #expect("\(error)".contains("compat.push2mob.gcm_provider"), "\(error)")
            #expect("\(error)".contains("kind apns"), "\(error)")
        }
    }
}
