import CompressNIO
import Foundation
import HeraldTestSupport
import NIOCore
import NIOPosix
import Testing

/// `server.rate_limit` through real sockets: 429 with `Retry-After`, buckets per client, refills,
/// `GET /status` exempt, UDP drops counted.
@Suite struct RateLimitTests {
    /// A rate so low that no token comes back during a test.
    static let stingy = "{rate: 0.001, burst: 2}"

    func metrics(_ herald: TestHerald, headers: [(String, String)] = []) async throws -> String {
        try await herald.request(.GET, "/metrics", headers: headers).body
    }

    static func basic(_ user: String, _ password: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }

    @Test func aBurstOverTheRegisterLimitIsRefusedAndRegistersNothing() async throws {
        try await withHerald(yaml: "server:\n  rate_limit:\n    register: \(Self.stingy)\n") { herald throws in
            _ = try await Fixtures.register(herald, url: "http://127.0.0.1:9/one")
            _ = try await Fixtures.register(herald, url: "http://127.0.0.1:9/two")
            #expect(try await herald.application.store.counts().subscribers == 2)

            let refused = try await herald.request(.POST, "/subscribers", form: "proto=http&token=http%3A%2F%2F127.0.0.1%3A9%2Fthree")
            #expect(refused.status == 429)
            #expect(refused.body == #"{"error":"Too many requests"}"#)
            #expect(refused.header("Content-Type")?.hasPrefix("application/json") == true)
            let retryAfter = try #require(refused.header("Retry-After").flatMap(Int.init))
            #expect(retryAfter >= 1)
            #expect(try await herald.application.store.counts().subscribers == 2, "the refused request registered nothing")
            #expect(try await herald.request(.GET, "/events").status == 429, "every route of the realm draws on the same bucket")

            // Other realms are not limited; the refusals are counted.
            #expect(try await herald.request(.POST, "/event/e", form: "msg=x").status == 204)
            let text = try await metrics(herald)
            #expect(text.contains(#"herald_rate_limited_total{realm="register"} 2"#), "\(text)")
            #expect(text.contains(#"herald_http_requests_total{route="/subscribers",method="POST",status="429"} 1"#))
        }
    }

    @Test func statusIsNeverLimited() async throws {
        try await withHerald(yaml: "server:\n  rate_limit:\n    register: {rate: 0.001, burst: 1}\n") { herald throws in
            #expect(try await herald.request(.GET, "/events").status == 200)
            #expect(try await herald.request(.GET, "/events").status == 429)
            for _ in 0..<20 {
                #expect(try await herald.request(.GET, "/status").status == 204)
            }
        }
    }

    @Test func twoBasicUsersHaveSeparateBuckets() async throws {
        let yaml = """
            server:
              auth:
                alice: {password: a, realms: [register, admin]}
                bob: {password: b, realms: [register]}
              rate_limit:
                register: {rate: 0.001, burst: 1}
            """
        try await withHerald(yaml: yaml) { herald throws in
            let alice = Self.basic("alice", "a")
            let bob = Self.basic("bob", "b")
            #expect(try await herald.request(.GET, "/events", headers: [alice]).status == 200)
            #expect(try await herald.request(.GET, "/events", headers: [alice]).status == 429)
            #expect(try await herald.request(.GET, "/events", headers: [bob]).status == 200, "same address, another user")
            #expect(try await herald.request(.GET, "/events", headers: [bob]).status == 429)
            // Refused credentials are answered before the limit and spend nobody's tokens.
            #expect(try await herald.request(.GET, "/events", headers: [Self.basic("bob", "wrong")]).status == 401)
            #expect(try await metrics(herald, headers: [alice]).contains(#"herald_rate_limited_total{realm="register"} 2"#))
        }
    }

    @Test func theBucketRefills() async throws {
        // Two tokens a second, one at a time: a refused client is admitted again once one is back.
        try await withHerald(yaml: "server:\n  rate_limit:\n    register: {rate: 2, burst: 1}\n") { herald throws in
            var refused: TestResponse?
            for _ in 0..<50 where refused == nil {
                let response = try await herald.request(.GET, "/events")
                if response.status == 429 { refused = response } else { #expect(response.status == 200) }
            }
            let refusal = try #require(refused, "requests in a tight loop reach the limit")
            #expect(refusal.header("Retry-After") == "1", "half a second, rounded up")
            try await eventually { try await herald.request(.GET, "/events").status == 200 }
        }
    }

    @Test func udpPublishesOverTheLimitAreDroppedAndCounted() async throws {
        let yaml = "server:\n  udp: {port: 1}\n  rate_limit:\n    publish: \(Self.stingy)\n"
        try await withHerald(yaml: yaml) { herald throws in
            let port = try #require(herald.udpPort)
            let stream = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=e")
            try await stream.waitFor("\n")
            let messages = ["first", "second", "third", "fourth", "fifth"]
            for message in messages {
                var buffer = ByteBuffer(string: "POST /event/e?msg=\(message)")
                try await send(try buffer.compress(with: .zlib()), to: port)
            }
            try await eventually { try await metrics(herald).contains(#"herald_rate_limited_total{realm="publish"} 3"#) }
            let text = try await metrics(herald)
            #expect(text.contains(#"herald_udp_datagrams_total{result="accepted"} 2"#))
            #expect(text.contains(#"herald_udp_datagrams_total{result="refused"} 3"#))
            try await stream.waitFor("second")
            #expect(stream.received.contains("first"))
            for dropped in messages.dropFirst(2) { #expect(!stream.received.contains(dropped)) }
            stream.close()
            // The HTTP publishes of the same address draw on the same bucket.
            #expect(try await herald.request(.POST, "/event/e", form: "msg=x").status == 429)
        }
    }

    @Test func listenAndAdminRealmsAreLimitedToo() async throws {
        let yaml = "server:\n  rate_limit:\n    admin: {rate: 0.001, burst: 1}\n    listen: {rate: 0.001, burst: 1}\n"
        try await withHerald(yaml: yaml) { herald throws in
            #expect(try await herald.request(.GET, "/feedback").status == 200)
            let refused = try await herald.request(.GET, "/metrics")
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After") != nil)
            let stream = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=e")
            #expect(stream.status == 200)
            stream.close()
            let second = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=e")
            #expect(second.status == 429)
            second.close()
        }
    }

    /// Sends one datagram from an ephemeral loopback port.
    func send(_ payload: ByteBuffer, to port: Int) async throws {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: payload)).get()
        try await channel.close().get()
    }
}
