import Foundation
import HeraldCore
import HeraldSimulators
import HeraldStore
import HeraldTestSupport
import Synchronization
import Testing

/// Publishing, statistics and webhook delivery: acceptance sequences 12, 13, 15–18, 20, 26, 27 of §16.
@Suite struct PublishTests {
    @Test func statisticsFollowPublishes() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                #expect(try await herald.request(.POST, "/event/e1", form: "msg=test").status == 204)
                #expect(try await herald.request(.GET, "/event/e1").body == "null", "no subscribers: nothing stored")

                let id = try await Fixtures.register(herald, url: receiver.url("/e1"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e1").status == 201)
                let before = try #require(try Fixtures.json(try await herald.request(.GET, "/event/e1").body) as? [String: Any])
                #expect(before["total"] as? Int == 0)
                #expect(before["subscribers"] as? Int == 1)
                #expect(before["last"] == nil)

                #expect(try await herald.request(.POST, "/event/e1", form: "msg=test").status == 204)
                let after = try #require(try Fixtures.json(try await herald.request(.GET, "/event/e1").body) as? [String: Any])
                #expect(after["total"] as? Int == 1)
                #expect(after["last"] is Int)
                #expect(try await herald.request(.POST, "/event/e1", form: "msg=test").status == 204)
                try await receiver.waitFor(count: 2)
                try await eventually {
                    let stats = try Fixtures.json(try await herald.request(.GET, "/event/e1").body) as? [String: Any]
                    return stats?["delivered"] as? Int == 2
                }
                let final = try #require(try Fixtures.json(try await herald.request(.GET, "/event/e1").body) as? [String: Any])
                #expect(final["total"] as? Int == 2)
                #expect(final["failed"] as? Int == 0)

                #expect(try await herald.request(.DELETE, "/event/e1").status == 204)
                #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions").body == "{}")
                #expect(try await herald.request(.DELETE, "/event/e1").status == 404)
                #expect(try await herald.request(.DELETE, "/subscriber/\(id)").status == 204)
                try await eventually { try await herald.application.store.counts().jobs == 0 }
                #expect(try await herald.application.store.counts() == .init(subscribers: 0, subscriptions: 0, events: 0, jobs: 0, retries: 0))
            }
        }
    }

    @Test func webhookBodyIsTheCompiledEvent() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                let loud = try await Fixtures.register(herald, url: receiver.url("/loud"))
                let quiet = try await Fixtures.register(herald, url: receiver.url("/quiet"))
                #expect(try await herald.request(.POST, "/subscriber/\(loud)/subscriptions/sport").status == 201)
                #expect(try await herald.request(.POST, "/subscriber/\(quiet)/subscriptions/sport", form: "ignore_message=1").status == 201)
                let publish = try await herald.request(
                    .POST, "/event/sport", form: "title=T&title.fr=TF&msg=hello+%24%7Bvar.name%7D&var.name=Bob&data.x=1")
                #expect(publish.status == 204)
                let requests = try await receiver.waitFor(count: 2)
                let byPath = Dictionary(uniqueKeysWithValues: requests.map { ($0.path, $0) })
                #expect(byPath["/loud"]?.body == #"{"event":"sport","title":{"default":"T","fr":"TF"},"message":{"default":"hello Bob"},"data":{"x":"1"}}"#)
                #expect(byPath["/quiet"]?.body == #"{"event":"sport","data":{"x":"1"}}"#)
                #expect(byPath["/loud"]?.headers[.contentType] == "application/json")
                #expect(byPath["/loud"]?.headers[.userAgent]?.hasPrefix("Herald/") == true)
            }
        }
    }

    @Test func httpsWebhooksTrustTheConfiguredCA() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let ca = try SimulatorCertificateAuthority(directory: directory)
        try await withHerald(yaml: "outbound:\n  ca_file: \(try #require(ca.caCertificateFile))\n") { herald in
            try await withReceiver(tls: ca) { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/secure"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/sport").status == 201)
                #expect(try await herald.request(.POST, "/event/sport", form: "msg=hi&data.x=1").status == 204)
                let requests = try await receiver.waitFor(count: 1)
                #expect(requests.first?.body == #"{"event":"sport","title":{},"message":{"default":"hi"},"data":{"x":"1"}}"#)
            }
        }
    }

    @Test func broadcastReachesEverySubscriberOnce() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                var ids: [String] = []
                for index in 0..<410 {
                    ids.append(try await Fixtures.register(herald, url: receiver.url("/b/\(index)")))
                }
                // A subscription must not make anyone receive a broadcast twice.
                #expect(try await herald.request(.POST, "/subscriber/\(ids[0])/subscriptions/other").status == 201)
                #expect(try await herald.request(.GET, "/event/broadcast").body == "null")
                #expect(try await herald.request(.POST, "/event/broadcast", form: "msg=hi").status == 204)
                let requests = try await receiver.waitFor(count: 410)
                #expect(Set(requests.map(\.path)).count == 410)
                let stats = try #require(try Fixtures.json(try await herald.request(.GET, "/event/broadcast").body) as? [String: Any])
                #expect(stats["total"] as? Int == 1)
                #expect(stats["subscribers"] as? Int == 410)
                try await eventually { try await herald.application.store.counts().jobs == 0 }
                #expect(receiver.count == 410)
            }
        }
    }

    @Test func unicastReachesOneSubscriber() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/one"))
                _ = try await Fixtures.register(herald, url: receiver.url("/two"))
                #expect(try await herald.request(.POST, "/event/unicast:\(id)", form: "msg=test").status == 204)
                let requests = try await receiver.waitFor(count: 1)
                #expect(requests.map(\.path) == ["/one"])
                let unknown = try await herald.request(.POST, "/event/unicast:doesnotexist", form: "msg=x")
                #expect(unknown.status == 404)
                #expect(unknown.body == #"{"error":"Unknown subscriber doesnotexist"}"#)
                #expect(try await herald.request(.GET, "/event/unicast:\(id)").status == 200)
                #expect(try await herald.request(.DELETE, "/subscriber/\(id)").status == 204)
                #expect(try await herald.request(.GET, "/event/unicast:\(id)").status == 404, "unicast statistics go with the subscriber")
                try await eventually { try await herald.application.store.counts().jobs == 0 }
                #expect(receiver.count == 1)
            }
        }
    }

    @Test(arguments: [
        ("msg=hello+%24%7Bvar.missing%7D", "The ${var.missing} does not exist"),
        ("foo=bar", "Invalid field: foo"),
        ("sound=x", "Empty payload"),
        ("msg=%24%7Bx.y%7D", "Invalid variable type for ${x.y}"),
    ])
    func invalidPayloadsAreRefusedAndReachNobody(form: String, error: String) async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/x"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                let listener = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=e")
                let response = try await herald.request(.POST, "/event/e", form: form)
                #expect(response.status == 400)
                #expect(response.body == "{\"error\":\"\(error)\"}")
                let stats = try #require(try Fixtures.json(try await herald.request(.GET, "/event/e").body) as? [String: Any])
                #expect(stats["total"] as? Int == 0)
                #expect(try await herald.application.store.counts().jobs == 0)
                #expect(!listener.received.contains("data:"))
                listener.close()
            }
        }
    }

    @Test func jsonPayloadValuesMustBeStrings() async throws {
        try await withHerald { herald in
            let response = try await herald.request(.POST, "/event/e", json: #"{"msg":5}"#)
            #expect(response.body == #"{"error":"Invalid value for `msg'"}"#)
        }
    }

    @Test func testPushReachesTheSubscriber() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/t"))
                let response = try await herald.request(.POST, "/subscriber/\(id)/test")
                #expect(response.status == 201)
                #expect(response.body == "Created")
                let requests = try await receiver.waitFor(count: 1)
                #expect(requests.first?.body == #"{"event":"test","title":{},"message":{"default":"Test"},"data":{"test":"ok"}}"#)
                #expect(try await herald.request(.POST, "/subscriber/invalidid/test").status == 404)
                #expect(try await herald.request(.GET, "/event/test").status == 404, "a test push touches no statistics")
            }
        }
    }

    @Test func aDeliveryResetsAFailingSubscribersCounter() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                let id = SubscriberID(rawValue: try await Fixtures.register(herald, url: receiver.url("/f")))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/f").status == 201)
                let store = herald.application.store
                let subscriber = try #require(try await store.subscriber(id))
                let failure = DeliveryRecord(
                    subscriberID: id, proto: subscriber.proto, token: subscriber.token, statisticsEvent: nil,
                    effect: .subscriberFailure(reason: "earlier", status: 503))
                _ = try await store.record([failure], maxFailures: 0, now: subscriber.updated)
                #expect(try await store.subscriber(id)?.failures == 1)
                // The fan-out reads the counter with the subscriber; above 0, its success resets it.
                #expect(try await herald.request(.POST, "/event/f", form: "msg=1").status == 204)
                _ = try await receiver.waitFor(count: 1)
                try await eventually { try await store.subscriber(id)?.failures == 0 }
            }
        }
    }

    @Test func aMemberOfAProviderNoLongerConfiguredIsSkippedAndTheRestDelivered() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                let kept = try await Fixtures.register(herald, url: receiver.url("/kept"))
                #expect(try await herald.request(.POST, "/subscriber/\(kept)/subscriptions/u").status == 201)
                // As registered while a provider now gone from the configuration was there.
                let store = herald.application.store
                let gone = try await store.register(
                    SubscriberRegistration(proto: "removed", token: "t-removed"), now: 1_700_000_000).subscriber.id
                _ = try await store.subscribe(gone, to: try #require(EventName("u")), ignoreMessage: false, now: 1_700_000_000)
                #expect(try await herald.request(.POST, "/event/u", form: "msg=1").status == 204)
                #expect(try await receiver.waitFor(count: 1).count == 1)
                try await eventually {
                    let entries = try await store.feedback(after: nil, since: nil, limit: 10)
                    return entries.contains { $0.subscriberID == gone && $0.reason == "UnknownProvider" && $0.action == .skipped }
                }
                try await eventually { try await store.counts().jobs == 0 }
                #expect(try await store.subscriber(gone) != nil, "skipped, not unregistered")
            }
        }
    }

    @Test func failingWebhookIsUnregisteredAfterMaxFailures() async throws {
        let yaml = """
            delivery:
              max_failures: 2
              retry_delay: 0.01
              max_retry_delay: 0.05
              breaker_open_duration: 0.01
              breaker_max_open_duration: 0.05
            """
        try await withHerald(yaml: yaml) { herald in
            // A port that was just released: every attempt is refused.
            let closedPort = try HeraldProcess.freePort()
            let id = try await Fixtures.register(herald, url: "http://127.0.0.1:\(closedPort)/refuses")
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e5").status == 201)
            #expect(try await herald.request(.POST, "/event/e5", form: "msg=1").status == 204)
            try await eventually {
                let counts = try await herald.application.store.counts()
                return counts.jobs == 0 && counts.retries == 0
            }
            #expect(try await herald.request(.GET, "/subscriber/\(id)").status == 200, "one exhausted delivery is below the threshold")
            #expect(try await herald.request(.POST, "/event/e5", form: "msg=2").status == 204)
            try await eventually { try await herald.request(.GET, "/subscriber/\(id)").status == 404 }
            let feedback = try await herald.request(.GET, "/feedback")
            #expect(feedback.status == 200)
            let object = try #require(try Fixtures.json(feedback.body) as? [String: Any])
            let entries = try #require(object["entries"] as? [[String: Any]])
            let unregistration = try #require(entries.first { $0["action"] as? String == "unregistered" })
            #expect(unregistration["subscriber"] as? String == id)
            #expect(unregistration["reason"] as? String == "failures:2")
            #expect(unregistration["proto"] as? String == "http")
            #expect(entries.contains { $0["action"] as? String == "failed" }, "the failures themselves are recorded")
            let next = try #require(object["next"] as? Int)
            let empty = try Fixtures.json(try await herald.request(.GET, "/feedback?after=\(next)").body) as? [String: Any]
            #expect((empty?["entries"] as? [Any])?.isEmpty == true)
            #expect(try await herald.request(.GET, "/feedback?limit=x").status == 400)
            #expect(try await herald.request(.GET, "/event/e5").status == 404, "the event went with its only subscriber")
        }
    }

    @Test func listsEventsInByteOrder() async throws {
        try await withHerald { herald in
            let id = try await Fixtures.register(herald, url: "http://127.0.0.1:9/x")
            for name in ["sport", "music", "Zed"] {
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/\(name)").status == 201)
            }
            #expect(try await herald.request(.GET, "/events").body == #"["Zed","music","sport"]"#)
        }
    }
}

/// Back-pressure: a full backlog refuses publishes with 503 and `Retry-After`, and recovers.
@Suite struct BackPressureTests {
    @Test func fullBacklogAnswers503UntilItDrains() async throws {
        let release = ReleaseSwitch()
        try await withHerald(yaml: "delivery:\n  max_backlog: 1\n") { herald in
            try await withReceiver(behaviour: { _ in
                await release.wait()
                return .ok
            }) { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/slow"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=1").status == 204)
                // The first job cannot finish while the receiver holds its answer.
                try await eventually {
                    let response = try await herald.request(.POST, "/event/e", form: "msg=2")
                    return response.status == 503 && response.header("Retry-After") == "5"
                }
                release.open()
                try await eventually { try await herald.request(.POST, "/event/e", form: "msg=3").status == 204 }
                #expect(try await herald.request(.POST, "/event/e", form: "foo=bar").status == 400, "validation still comes first")
            }
        }
    }
}

/// A latch the test opens to let a held webhook answer go.
final class ReleaseSwitch: Sendable {
    private let isOpen = Mutex(false)

    func open() { isOpen.withLock { $0 = true } }

    func wait() async {
        while !isOpen.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
    }
}
