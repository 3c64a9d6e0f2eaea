import Foundation
import HeraldSimulators
import HeraldTestSupport
import Testing

/// One destination's trouble stays its own: a push service that hangs or refuses, or a webhook
/// that never answers, delays no other subscriber, and what waited for a service that was down
/// arrives once when it is back.
///
/// The hanging destinations hold their requests for ten minutes, so "served while it hangs" is an
/// order of events (the healthy outcome is recorded while the hung deliveries are still out), not
/// a measured time.
@Suite struct BulkheadTests {
    static let hangingAPNs = APNsSimulator.Faults(hangRate: 1)
    /// Hung deliveries are abandoned at once when a test's server stops.
    static let quickStop = "delivery:\n  shutdown_grace_period: 0.1\n"

    func register(_ herald: TestHerald, proto: String, token: String, to event: String) async throws -> String {
        let response = try await herald.request(.POST, "/subscribers", form: "proto=\(proto)&token=\(Fixtures.formEncoded(token))")
        #expect(response.status == 201, "\(response.body)")
        let id = try #require((try Fixtures.json(response.body) as? [String: Any])?["id"] as? String)
        #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/\(event)").status == 201)
        return id
    }

    /// Runs `body`, then `stop` (a simulator's), whether `body` threw or not.
    func stopping<T>(_ stop: () async -> Void, _ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    func statistics(_ herald: TestHerald, _ event: String) async throws -> [String: Any] {
        try #require(try Fixtures.json(try await herald.request(.GET, "/event/\(event)").body) as? [String: Any])
    }

    /// How the APNs endpoint of a test misbehaves.
    enum Trouble: String, CaseIterable, Sendable {
        /// It takes requests and never answers them.
        case hangs
        /// It refuses connections.
        case refusesConnections
    }

    /// Ten-minute deadlines: before the bulkheads, the webhook waited for the APNs requests'.
    @Test(arguments: Trouble.allCases)
    func webhooksAreServedWhileAPNs(_ trouble: Trouble) async throws {
        let bed = try await APNsTestBed.start(extraProviderOptions: ["request_timeout: 600"])
        switch trouble {
        case .hangs: bed.simulator.setFaults(Self.hangingAPNs)
        case .refusesConnections: await bed.simulator.stop()
        }
        try await stopping(bed.simulator.stop) { try await withReceiver { receiver in
            try await withHerald(yaml: bed.yaml(extra: Self.quickStop)) { herald in
                for n in 0..<20 { _ = try await register(herald, proto: "apns", token: APNsTestBed.token(n), to: "news") }
                _ = try await register(herald, proto: "http", token: receiver.url("/hook"), to: "news")
                #expect(try await herald.request(.POST, "/event/news", form: "msg=hello").status == 204)

                try await receiver.waitFor(count: 1)
                try await eventually { (try await statistics(herald, "news")["delivered"] as? Int) == 1 }
                #expect(bed.simulator.acceptedCount == 0, "no APNs request was answered: the webhook did not wait for them")
                #expect((try await statistics(herald, "news")["failed"] as? Int) == 0, "the APNs deliveries are out or wait to be retried")
                if trouble == .hangs {
                    #expect(try await herald.application.store.counts().jobs == 1, "the APNs deliveries are still out")
                }
            }
        } }
    }

    @Test func apnsIsServedWhileAWebhookHangs() async throws {
        let bed = try await APNsTestBed.start()
        let silent = try SilentListener()
        defer { silent.close() }
        let yaml = bed.yaml(extra: Self.quickStop).replacingOccurrences(of: "    kind: http\n", with: "    kind: http\n    timeout: 600\n")
        try await stopping(bed.simulator.stop) { try await withHerald(yaml: yaml) { herald in
            _ = try await register(herald, proto: "http", token: silent.url("/never"), to: "news")
            for n in 0..<10 { _ = try await register(herald, proto: "apns", token: APNsTestBed.token(n), to: "news") }
            #expect(try await herald.request(.POST, "/event/news", form: "msg=hello").status == 204)

            try await eventually { bed.simulator.acceptedCount == 10 }
            try await eventually { (try await statistics(herald, "news")["delivered"] as? Int) == 10 }
            #expect((try await statistics(herald, "news")["failed"] as? Int) == 0)
            #expect(try await herald.application.store.counts().jobs == 1, "the webhook delivery is still out")
        } }
    }

    @Test func anEventWithoutSubscribersOfAHungServiceIsNotQueuedBehindOne() async throws {
        let bed = try await APNsTestBed.start(extraProviderOptions: ["request_timeout: 600"])
        bed.simulator.setFaults(Self.hangingAPNs)
        try await stopping(bed.simulator.stop) { try await withReceiver { receiver in
            // More publishes to the hung service than there are fan-out workers (concurrent_jobs: 2).
            try await withHerald(yaml: bed.yaml(extra: Self.quickStop + "  concurrent_jobs: 2\n")) { herald in
                for n in 0..<6 {
                    _ = try await register(herald, proto: "apns", token: APNsTestBed.token(n), to: "apple\(n)")
                }
                _ = try await register(herald, proto: "http", token: receiver.url("/hook"), to: "web")
                for n in 0..<6 { #expect(try await herald.request(.POST, "/event/apple\(n)", form: "msg=x").status == 204) }
                #expect(try await herald.request(.POST, "/event/web", form: "msg=y").status == 204)

                let received = try await receiver.waitFor(count: 1)
                #expect(received.first?.body.contains(#""event":"web""#) == true)
                // Its outcome is recorded (and its job removed) while the six APNs publishes are still out.
                try await eventually { try await herald.application.store.counts().jobs == 6 }
                #expect(bed.simulator.acceptedCount == 0)
            }
        } }
    }

    @Test func fcmHangingDelaysNoWebhook() async throws {
        let bed = try await FCMTestBed.start(extraProviderOptions: ["request_timeout: 600"])
        let simulator = bed.simulator
        simulator.setFaults(FCMSimulator.Faults(hangRate: 1))
        let yaml = Self.quickStop + "providers:\n" + bed.providerYAML + "\n  http:\n    kind: http\n"
        try await stopping(simulator.stop) { try await withReceiver { receiver in
            try await withHerald(yaml: yaml) { herald in
                for n in 0..<20 { _ = try await register(herald, proto: "gcm", token: String(repeating: "a", count: 40) + ":\(n)", to: "match") }
                _ = try await register(herald, proto: "http", token: receiver.url("/hook"), to: "match")
                #expect(try await herald.request(.POST, "/event/match", form: "msg=goal").status == 204)
                try await receiver.waitFor(count: 1)
                try await eventually { (try await statistics(herald, "match")["delivered"] as? Int) == 1 }
                #expect(simulator.acceptedCount == 0)
                #expect(try await herald.application.store.counts().jobs == 1, "the FCM deliveries are still out")
            }
        } }
    }

    @Test func whatWaitedForAServiceThatWasDownArrivesOnceWhenItIsBack() async throws {
        // A long deadline: the pool fails its waiting requests itself after a few refused attempts.
        let bed = try await APNsTestBed.start(extraProviderOptions: ["request_timeout: 600"])
        await bed.simulator.stop()  // refused from now on
        let yaml = bed.yaml(extra: """
            delivery:
              retry_delay: 0.01
              max_retry_delay: 0.05
              max_attempts: 10
              breaker_threshold: 3
              breaker_open_duration: 0.1
              breaker_max_open_duration: 0.2

            """)
        try await withHerald(yaml: yaml) { herald in
            for n in 0..<20 { _ = try await register(herald, proto: "apns", token: APNsTestBed.token(n), to: "news") }
            #expect(try await herald.request(.POST, "/event/news", form: "msg=back").status == 204)
            try await eventually { try await herald.request(.GET, "/metrics").body.contains(#"herald_provider_up{provider="apns"} 0"#) }
            try await eventually { try await herald.application.store.counts().retries == 20 }

            let back = APNsSimulator(configuration: bed.configuration)
            _ = try await back.start()
            try await stopping(back.stop) {
                try await eventually {
                    let counts = try await herald.application.store.counts()
                    return counts.jobs == 0 && counts.retries == 0
                }
                #expect(back.acceptedCount == 20, "each once")
                #expect(Set(back.acceptedTokens()).count == 20)
                #expect((try await statistics(herald, "news")["delivered"] as? Int) == 20)
                #expect(try await herald.application.store.counts().deadLetters == 0)
                #expect(try await herald.request(.GET, "/metrics").body.contains(#"herald_provider_up{provider="apns"} 1"#))
            }
        }
    }
}
