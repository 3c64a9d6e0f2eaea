import HeraldCore
import HeraldGCMLegacy
import HeraldSimulators
import Testing

/// The `gcm-legacy` kind against the legacy GCM simulator, over real TLS with the generated CA.
@Suite struct GCMLegacyIntegrationTests {
    @Test func concurrentSendsAreBatchedIntoMulticastRequests() async throws {
        try await GCMLegacyFixture.with { fixture in
            // A generous delay lets the last, partial batch fill however slowly a loaded machine schedules the
            // 2500 sends; full batches go at once whatever the delay.
            let provider = try await fixture.provider(extra: ["batch_delay": "2"])
            #expect(provider.maxConcurrentDeliveries == 2000)
            let tokens = (0..<2500).map { "token-\($0)" }
            let outcomes = await deliver(provider, .sample(), to: tokens, lang: "fr")
            #expect(outcomes.allSatisfy { $0?.outcome == .delivered })
            let statistics = fixture.simulator.statistics()
            #expect(statistics.requests == 3)
            #expect(statistics.delivered == 2500)
            let batches = fixture.simulator.accepted()
            #expect(batches.map(\.registrationIDs.count).sorted() == [500, 1000, 1000])
            #expect(Set(batches.flatMap(\.registrationIDs)) == Set(tokens))
            let first = try #require(batches.first)
            #expect(first.header("Authorization") == "key=\(GCMLegacyFixture.apiKey)")
            #expect(first.body.hasSuffix(#"],"collapse_key":"sport","data":{"title":"But","message":"L'équipe A marque","score":"2-1"}}"#))
            await provider.shutdown()
        }
    }

    @Test func eachSendGetsTheResultOfItsOwnToken() async throws {
        try await GCMLegacyFixture.with { fixture in
            let provider = try await fixture.provider(extra: ["batch_delay": "2"])
            fixture.simulator.unregister("gone")
            fixture.simulator.setState(.invalidRegistration, of: "garbage")
            fixture.simulator.setState(.canonical("new-token"), of: "old-token")
            fixture.simulator.setState(.mismatchSenderID, of: "foreign")
            fixture.simulator.setState(.unavailable, of: "busy")
            let tokens = ["fine", "gone", "garbage", "old-token", "foreign", "busy"]
            let outcomes = await deliver(provider, .sample(), to: tokens)
            #expect(outcomes.map { $0?.outcome } == [.delivered, .deadToken, .deadToken, .delivered, .subscriberFailure, .transient])
            #expect(outcomes.map { $0?.reason } == [nil, "NotRegistered", "InvalidRegistration", "CanonicalRegistrationID", "MismatchSenderId", "Unavailable"])
            #expect(fixture.simulator.statistics().requests == 1)
            #expect(fixture.simulator.statistics().canonicalIDs == 1)
            #expect(outcomes.map { $0?.replacementToken } == [nil, nil, nil, "new-token", nil, nil], "the pipeline stores the canonical id")
            await provider.shutdown()
        }
    }

    @Test func aWrongKeyIsAConfigurationFailure() async throws {
        try await GCMLegacyFixture.with { fixture in
            let provider = try await fixture.provider(apiKey: "AIza-revoked", extra: ["batch_delay": "0.2"])
            let outcomes = await deliver(provider, .sample(), to: ["a", "b"])
            #expect(outcomes.map { $0?.outcome } == [.configurationFailure, .configurationFailure])
            #expect(outcomes.first??.status == 401)
            #expect(fixture.simulator.statistics().rejections[401] == 1)
            await provider.shutdown()
        }
    }

    @Test func outagesAreTransientWithRetryAfter() async throws {
        try await GCMLegacyFixture.with { fixture in
            let provider = try await fixture.provider(extra: ["batch_size": "1"])
            fixture.simulator.injectNext([.status(503, retryAfter: 12), .status(500), .throttle(retryAfter: 3)])
            for (status, retryAfter) in [(503, Duration?.some(.seconds(12))), (500, nil), (429, .seconds(3))] {
                let outcome = await deliver(provider, .sample(), to: ["t"])[0]
                #expect(outcome?.outcome == .transient)
                #expect(outcome?.status == status)
                #expect(outcome?.retryAfter == retryAfter)
            }
            #expect(await deliver(provider, .sample(), to: ["t"])[0]?.outcome == .delivered)
            await provider.shutdown()
        }
    }

    @Test func silentSubscriptionsGetDataOnly() async throws {
        try await GCMLegacyFixture.with { fixture in
            let provider = try await fixture.provider(extra: ["batch_size": "1"])
            var event = PublishedEvent.sample(data: ["score": "3-1", "google.x": "dropped"])
            event.ttl = 60
            event.priority = .high
            event.collapseKey = "scores"
            #expect(await deliver(provider, event, to: ["t"], silent: true)[0]?.outcome == .delivered)
            let body = try #require(fixture.simulator.accepted().first?.body)
            #expect(body == #"{"registration_ids":["t"],"collapse_key":"scores","priority":"high","time_to_live":60,"data":{"score":"3-1"}}"#)
            await provider.shutdown()
        }
    }
}
