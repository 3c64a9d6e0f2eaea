import Foundation
import HeraldTestSupport
import Synchronization
import Testing

/// Dead letters: what failed for good is listed by `GET /dead-letters` and can be sent again.
@Suite struct DeadLetterTests {
    private static let yaml = """
        delivery:
          max_attempts: 2
          retry_delay: 0.01
          max_retry_delay: 0.02
        """

    @Test func exhaustedRetriesAreListedAndReplayDeliversThem() async throws {
        let healthy = Mutex(false)
        try await withHerald(yaml: Self.yaml) { herald in
            try await withReceiver(behaviour: { _ in healthy.withLock { $0 } ? .ok : .serviceUnavailable }) { receiver in
                var ids: [String] = []
                for n in 0..<3 {
                    let id = try await Fixtures.register(herald, url: receiver.url("/hook/\(n)"))
                    #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/news").status == 201)
                    ids.append(id)
                }
                #expect(try await herald.request(.POST, "/event/news", form: "msg=Extra&data.edition=7").status == 204)
                try await eventually {
                    let counts = try await herald.application.store.counts()
                    return counts.jobs == 0 && counts.retries == 0 && counts.deadLetters == 3
                }
                #expect(receiver.count == 6, "two attempts each, then given up")
                #expect(try await herald.request(.GET, "/metrics").body.contains(#"herald_dead_letters_total{provider="http"} 3"#))

                let listing = try await herald.request(.GET, "/dead-letters?provider=http&event=news")
                #expect(listing.status == 200)
                let object = try #require(try Fixtures.json(listing.body) as? [String: Any])
                let entries = try #require(object["entries"] as? [[String: Any]])
                #expect(Set(entries.compactMap { $0["subscriber"] as? String }) == Set(ids))
                let first = try #require(entries.first)
                #expect(first["reason"] as? String == "HTTP 503")
                #expect(first["status"] as? Int == 503)
                #expect(first["attempts"] as? Int == 2)
                #expect(first["proto"] as? String == "http")
                let notification = try #require(first["notification"] as? [String: Any])
                #expect((notification["data"] as? [String: Any])?["edition"] as? String == "7")
                #expect(try await herald.request(.GET, "/dead-letters?provider=apns").body.contains(#""entries":[]"#))
                #expect(try await herald.request(.GET, "/dead-letters?since=x").status == 400)

                // Replaying needs an explicit selection.
                #expect(try await herald.request(.POST, "/dead-letters/replay").status == 400)
                let firstID = try #require(first["id"] as? Int)
                healthy.withLock { $0 = true }
                let one = try await herald.request(.POST, "/dead-letters/replay", json: #"{"ids":[\#(firstID)]}"#)
                #expect(one.status == 200)
                #expect(one.body == #"{"replayed":1,"orphaned":0}"#)
                _ = try await receiver.waitFor(count: 7)
                let rest = try await herald.request(.POST, "/dead-letters/replay?provider=http", form: "event=news")
                #expect(rest.body == #"{"replayed":2,"orphaned":0}"#)
                let received = try await receiver.waitFor(count: 9)
                #expect(Set(received.suffix(3).map(\.path)) == ["/hook/0", "/hook/1", "/hook/2"])
                #expect(received.last?.body.contains(#""edition":"7""#) == true)
                try await eventually { try await herald.application.store.counts().retries == 0 }
                #expect(try await herald.application.store.counts().deadLetters == 0)
                let statistics = try #require(try Fixtures.json(try await herald.request(.GET, "/event/news").body) as? [String: Any])
                #expect(statistics["delivered"] as? Int == 3, "replayed deliveries count in the event's statistics")
            }
        }
    }

    @Test func deleteDropsSelectedDeadLetters() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            try await withReceiver(behaviour: { _ in .badRequest }) { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/hook"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=1").status == 204)
                try await eventually { try await herald.application.store.counts().deadLetters == 1 }
                #expect(receiver.count == 1, "a permanent failure is not retried")
                #expect(try await herald.request(.DELETE, "/dead-letters").status == 400)
                let deleted = try await herald.request(.DELETE, "/dead-letters?all=true")
                #expect(deleted.body == #"{"deleted":1}"#)
                #expect(try await herald.application.store.counts().deadLetters == 0)
            }
        }
    }
}
