import Foundation
import HeraldHTTP2
import HeraldSimulators
import HeraldTestSupport
import Testing

/// Herald → APNs over real TLS + HTTP/2 against the simulator: acceptance sequences 23, 24 and 28
/// of pushd-api.md §16, authentication, the one-stream start, retries, GOAWAY, resets and deadlines.
@Suite struct APNsDeliveryTests {
    static let fast = """
        delivery:
          retry_delay: 0.01
          max_retry_delay: 0.05
          max_attempts: 10

        """

    /// Runs `body` against a Herald whose `apns` provider speaks HTTP/2 through `engine`.
    func withAPNs<T>(
        engine: HTTP2Engine, certificateAuthentication: Bool = false, options: [String] = [], extra: String = "",
        configure: (inout APNsSimulator.Configuration) -> Void = { _ in },
        _ body: (TestHerald, APNsTestBed) async throws -> T
    ) async throws -> T {
        try await withAPNsHerald(
            certificateAuthentication: certificateAuthentication, options: options + ["http2_engine: \(engine)"], extra: Self.fast + extra,
            configure: configure, body)
    }

    func register(_ herald: TestHerald, token: String, extra: String = "") async throws -> String {
        let response = try await herald.request(.POST, "/subscribers", form: "proto=apns&token=\(token)\(extra)")
        #expect(response.status == 201, "\(response.body)")
        return try #require((try Fixtures.json(response.body) as? [String: Any])?["id"] as? String)
    }

    func badge(_ herald: TestHerald, _ id: String) async throws -> Int? {
        (try Fixtures.json(try await herald.request(.GET, "/subscriber/\(id)").body) as? [String: Any])?["badge"] as? Int
    }

    @Test(arguments: HTTP2Engine.allCases)
    func tokensAreValidatedAndLowerCased(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine) { herald, _ in
            let upper = "FE66489F304DC75B8D6E8200DFF8A456E8DAEACEC428B427E9518741C92C6660"
            let first = try await herald.request(.POST, "/subscribers", form: "proto=apns&token=\(upper)&lang=fr&badge=0")
            #expect(first.status == 201)
            #expect(first.body.contains(#""token":"\#(upper.lowercased())""#))
            let again = try await herald.request(.POST, "/subscribers", form: "proto=apns&token=\(upper.lowercased())&lang=en")
            #expect(again.status == 200)
            let bad = try await herald.request(.POST, "/subscribers", form: "proto=apns&token=DEADBEEF")
            #expect(bad.body == #"{"error":"Invalid value for `token'"}"#)
        }
    }

    @Test(arguments: HTTP2Engine.allCases)
    func badgeHeadersAndSilence(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine) { herald, bed in
            let token = APNsTestBed.token(1)
            let id = try await register(herald, token: token, extra: "&badge=3")
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/news").status == 201)

            #expect(try await herald.request(.POST, "/event/news", form: "msg=x&sound=ding").status == 204)
            try await eventually { bed.simulator.acceptedCount == 1 }
            let first = try #require(bed.simulator.accepted().first)
            #expect(first.body == #"{"aps":{"alert":"x","badge":4,"sound":"ding"}}"#)
            #expect(first.header("apns-push-type") == "alert")
            #expect(first.header("apns-priority") == "10")
            #expect(first.header("apns-topic") == bed.topic)
            #expect(first.token == token)
            #expect(try await badge(herald, id) == 4)

            #expect(try await herald.request(.POST, "/event/news", form: "msg=x&incrementBadge=false").status == 204)
            try await eventually { bed.simulator.acceptedCount == 2 }
            #expect(bed.simulator.accepted()[1].body == #"{"aps":{"alert":"x","badge":4}}"#)
            #expect(try await badge(herald, id) == 4)

            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/news", form: "ignore_message=1").status == 204)
            #expect(try await herald.request(.POST, "/event/news", form: "msg=x&sound=ding&data.k=v").status == 204)
            try await eventually { bed.simulator.acceptedCount == 3 }
            #expect(bed.simulator.accepted()[2].body == #"{"aps":{"badge":5},"k":"v"}"#, "silent: no alert, no sound")
            #expect(try await badge(herald, id) == 5)

            // Herald's own apns-id on every request: a lowercase UUID, never repeated.
            let ids = bed.simulator.accepted().compactMap { $0.header("apns-id") }
            #expect(ids.count == 3)
            #expect(Set(ids).count == 3)
            #expect(ids.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() })

            let statistics = bed.simulator.statistics()
            #expect(statistics.maxConcurrentStreamsRaises >= 1, "the connection started at one stream and was raised")
            #expect(statistics.maxConcurrentStreamsViolations == 0)
        }
    }

    @Test(arguments: HTTP2Engine.allCases)
    func localizationFallsBackByLanguage(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine) { herald, bed in
            let languages = ["fr_BE", "fr_CA", "de", nil]
            for (index, lang) in languages.enumerated() {
                let id = try await register(herald, token: APNsTestBed.token(index), extra: lang.map { "&lang=\($0)" } ?? "")
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/l10n").status == 201)
            }
            let form = "msg=my+message&msg.fr=mon+message&msg.fr_CA=mon+message+canadien"
            #expect(try await herald.request(.POST, "/event/l10n", form: form).status == 204)
            try await eventually { bed.simulator.acceptedCount == 4 }
            let byToken = Dictionary(uniqueKeysWithValues: bed.simulator.accepted().map { ($0.token, $0.body) })
            #expect(byToken[APNsTestBed.token(0)]?.contains(#""alert":"mon message""#) == true)
            #expect(byToken[APNsTestBed.token(1)]?.contains(#""alert":"mon message canadien""#) == true)
            #expect(byToken[APNsTestBed.token(2)]?.contains(#""alert":"my message""#) == true)
            #expect(byToken[APNsTestBed.token(3)]?.contains(#""alert":"my message""#) == true)
        }
    }

    @Test(arguments: HTTP2Engine.allCases)
    func deadTokensAreUnregistered(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine) { herald, bed in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let gone = try await register(herald, token: APNsTestBed.token(1))
            let reinstalled = try await register(herald, token: APNsTestBed.token(2))
            let bad = try await register(herald, token: APNsTestBed.token(3))
            bed.simulator.unregister(token: APNsTestBed.token(1), at: now + 60_000)
            bed.simulator.unregister(token: APNsTestBed.token(2), at: now - 3_600_000)
            bed.simulator.markBadToken(APNsTestBed.token(3))
            #expect(try await herald.request(.POST, "/event/broadcast", form: "msg=hello").status == 204)
            try await eventually { try await herald.request(.GET, "/subscriber/\(gone)").status == 404 }
            try await eventually { try await herald.request(.GET, "/subscriber/\(bad)").status == 404 }
            #expect(try await herald.request(.GET, "/subscriber/\(reinstalled)").status == 200, "registered again after the timestamp: kept")

            let feedback = try #require(try Fixtures.json(try await herald.request(.GET, "/feedback").body) as? [String: Any])
            let entries = try #require(feedback["entries"] as? [[String: Any]])
            #expect(entries.contains { $0["subscriber"] as? String == gone && $0["reason"] as? String == "Unregistered" && $0["action"] as? String == "unregistered" })
            #expect(entries.contains { $0["subscriber"] as? String == bad && $0["reason"] as? String == "BadDeviceToken" })
            #expect(entries.contains { $0["subscriber"] as? String == reinstalled && $0["action"] as? String == "kept" })
        }
    }

    @Test(arguments: HTTP2Engine.allCases)
    func transientAnswersAreRetriedUntilDelivered(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine) { herald, bed in
            let id = try await register(herald, token: APNsTestBed.token(7))
            bed.simulator.injectNext([.internalServerError, .tooManyRequests(retryAfter: nil), .serviceUnavailable])
            #expect(try await herald.request(.POST, "/event/unicast:\(id)", form: "msg=eventually").status == 204)
            try await eventually { bed.simulator.acceptedCount == 1 }
            try await eventually {
                let stats = try Fixtures.json(try await herald.request(.GET, "/event/unicast:\(id)").body) as? [String: Any]
                return stats?["delivered"] as? Int == 1
            }
            #expect(bed.simulator.requestCount == 4)
            #expect(try await herald.application.store.counts().retries == 0)
            let metrics = try await herald.request(.GET, "/metrics").body
            #expect(metrics.contains(#"herald_retries_total{provider="apns"} 3"#))
            #expect(metrics.contains(#"herald_deliveries_total{provider="apns",outcome="transient"} 3"#))
            #expect(metrics.contains(#"herald_provider_connections{provider="apns"} 1"#), "one HTTP/2 connection carried it all")
            #expect(metrics.contains(#"herald_provider_streams{provider="apns",state="in_use"} 0"#))
        }
    }

    @Test(arguments: HTTP2Engine.allCases)
    func goAwayAndResetMidFlightLoseNothing(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine) { herald, bed in
            let count = 400
            var ids: [String] = []
            for index in 0..<count { ids.append(try await register(herald, token: APNsTestBed.token(index))) }
            // Issue 5's fault mix: 10 % 500s, a GOAWAY and a connection reset during one fan-out.
            bed.simulator.setFaults(.init(internalServerErrorRate: 0.1))
            bed.simulator.inject(.goAway(reason: "Shutdown"), atRequest: 60)
            bed.simulator.inject(.resetConnection, atRequest: 200)
            #expect(try await herald.request(.POST, "/event/broadcast", form: "msg=all").status == 204)
            do {
                try await eventually(limit: .seconds(60)) { Set(bed.simulator.acceptedTokens()).count == count }
            } catch {
                let stats = try await herald.request(.GET, "/event/broadcast").body
                let feedback = try await herald.request(.GET, "/feedback?limit=5").body
                Issue.record("accepted \(Set(bed.simulator.acceptedTokens()).count) of \(count); stats \(stats); feedback \(feedback)")
                throw error
            }
            try await eventually {
                let stats = try Fixtures.json(try await herald.request(.GET, "/event/broadcast").body) as? [String: Any]
                return stats?["delivered"] as? Int == count
            }
            #expect(bed.simulator.statistics().goAwaysSent >= 1)
            // A reset can cost answers the service gave but Herald never read: those are the only duplicates.
            #expect(bed.simulator.acceptedTokens().count - count <= 2000, "duplicates stay within delivery.in_flight")
            #expect(try await herald.application.store.counts().subscribers == count, "no one was unregistered")
        }
    }

    @Test(arguments: HTTP2Engine.allCases)
    func aHangingServerHitsTheStreamDeadline(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine, options: ["request_timeout: 2"]) { herald, bed in
            let id = try await register(herald, token: APNsTestBed.token(9))
            bed.simulator.injectNext([.hang])
            #expect(try await herald.request(.POST, "/event/unicast:\(id)", form: "msg=late").status == 204)
            try await eventually { bed.simulator.acceptedCount == 1 }
            #expect(bed.simulator.requestCount >= 2, "the hung request was abandoned and retried")
        }
    }

    @Test(arguments: HTTP2Engine.allCases)
    func certificateAuthentication(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine, certificateAuthentication: true) { herald, bed in
            let id = try await register(herald, token: APNsTestBed.token(5))
            #expect(try await herald.request(.POST, "/subscriber/\(id)/test").status == 201)
            try await eventually { bed.simulator.acceptedCount == 1 }
            let accepted = try #require(bed.simulator.accepted().first)
            #expect(accepted.header("authorization") == nil)
            #expect(accepted.body == #"{"aps":{"alert":"Test"},"test":"ok"}"#, "no stored badge: none sent (§7)")
            #expect(try await badge(herald, id) == 1, "but the stored badge is counted")
        }
    }

    @Test(arguments: HTTP2Engine.allCases)
    func oversizedPayloadIsNotSent(engine: HTTP2Engine) async throws {
        try await withAPNs(engine: engine) { herald, bed in
            let id = try await register(herald, token: APNsTestBed.token(11))
            let big = String(repeating: "x", count: 5000)
            #expect(try await herald.request(.POST, "/event/unicast:\(id)", form: "msg=\(big)").status == 204)
            try await eventually {
                let stats = try Fixtures.json(try await herald.request(.GET, "/event/unicast:\(id)").body) as? [String: Any]
                return stats?["failed"] as? Int == 1
            }
            #expect(bed.simulator.requestCount == 0)
            #expect(try await herald.request(.GET, "/subscriber/\(id)").status == 200, "a message failure is not the subscriber's")
        }
    }
}
