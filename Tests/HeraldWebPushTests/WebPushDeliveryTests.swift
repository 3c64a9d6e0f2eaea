import HeraldCore
import HeraldSimulators
import HeraldWebPush
import Testing

/// `WebPushKind().makeProvider(...)` against the Web Push simulator over real TLS: every outcome class.
@Suite struct WebPushDeliveryTests {
    @Test func deliveredMessageDecryptsToTheRenderedJSON() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            let event = sampleEvent(ttl: 600, priority: .high, collapseKey: "score")

            let outcome = try await fixture.deliver(event, variant: MessageVariant(lang: "fr"), to: subscription)

            #expect(outcome.outcome == .delivered, "\(outcome.reason ?? "")")
            let accepted = try #require(fixture.simulator.accepted().first)
            guard case .send(let rendered) = fixture.provider.render(event, for: MessageVariant(lang: "fr")) else {
                Issue.record("not rendered")
                return
            }
            #expect(accepted.plaintext == rendered.plaintext)
            #expect(accepted.text == #"{"event":"sport","title":"But","message":"1 à 0","data":{"match":"42"}}"#)
            #expect(accepted.ttl == 600)
            #expect(accepted.urgency == "high")
            #expect(accepted.topic == "score")
            #expect(accepted.vapidSubject == WebPushFixture.subject)
            #expect(accepted.vapidKey == fixture.key.publicKeyBase64URL)
            #expect(accepted.bodyLength == 86 + rendered.plaintext.count + 17)
            #expect(fixture.simulator.messages(for: subscription) == [accepted.text])
            #expect(fixture.simulator.messages(forEndpoint: subscription.endpoint) == [accepted.text])
        }
    }

    @Test func silentDefaultsAndSeveralSubscribersShareOneRendering() async throws {
        try await WebPushFixture.with { fixture in
            let first = try fixture.simulator.makeSubscription()
            let second = try fixture.simulator.makeSubscription()
            guard case .send(let message) = fixture.provider.render(sampleEvent(), for: MessageVariant(silent: true)) else {
                Issue.record("not rendered")
                return
            }
            #expect(await fixture.provider.send(message, to: try fixture.target(first)).outcome == .delivered)
            #expect(await fixture.provider.send(message, to: try fixture.target(second)).outcome == .delivered)

            let accepted = fixture.simulator.accepted()
            #expect(accepted.map(\.subscriptionID) == [first.id, second.id])
            #expect(accepted.allSatisfy { $0.text == #"{"event":"sport","data":{"match":"42"}}"# })
            #expect(accepted.allSatisfy { $0.ttl == 86_400 && $0.urgency == "low" && $0.topic == nil })
        }
    }

    @Test func largestPlaintextFillsA4096ByteBody() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            let overhead = #"{"event":"big","data":{"k":""}}"#.utf8.count
            let value = String(repeating: "x", count: WebPushEncryption.maximumPlaintextLength - overhead)
            let outcome = try await fixture.deliver(PublishedEvent(event: "big", data: ["k": value]), to: subscription)
            #expect(outcome.outcome == .delivered)
            #expect(fixture.simulator.accepted().first?.bodyLength == 4096)
        }
    }

    @Test func expiredAndUnknownSubscriptionsAreDeadTokens() async throws {
        try await WebPushFixture.with { fixture in
            let expired = try fixture.simulator.makeSubscription()
            let removed = try fixture.simulator.makeSubscription()
            fixture.simulator.expire(expired)
            fixture.simulator.remove(removed)

            let gone = try await fixture.deliver(sampleEvent(), to: expired)
            let notFound = try await fixture.deliver(sampleEvent(), to: removed)

            #expect(gone.outcome == .deadToken)
            #expect(gone.status == 410)
            #expect(notFound.outcome == .deadToken)
            #expect(notFound.status == 404)
            #expect(fixture.simulator.acceptedCount == 0)
        }
    }

    @Test func injectedAnswersMapToTheirClasses() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            fixture.simulator.injectNext([
                .gone, .notFound, .tooManyRequests(retryAfter: 30), .payloadTooLarge, .internalServerError, .serviceUnavailable,
            ])
            var outcomes: [DeliveryOutcome] = []
            for _ in 0..<7 { outcomes.append(try await fixture.deliver(sampleEvent(), to: subscription)) }

            #expect(outcomes.map(\.outcome) == [.deadToken, .deadToken, .transient, .messageFailure, .transient, .transient, .delivered])
            #expect(outcomes.map(\.status) == [410, 404, 429, 413, 500, 503, nil])
            #expect(outcomes[2].retryAfter == .seconds(30))
            #expect(outcomes[0].reason == "HTTP 410 errno 103")
            #expect(fixture.simulator.requestCount == 7)
            #expect(fixture.simulator.acceptedCount == 1)
        }
    }

    @Test func slowAnswerStillDelivers() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            fixture.simulator.injectNext([.delay(milliseconds: 200)])
            #expect(try await fixture.deliver(sampleEvent(), to: subscription).outcome == .delivered)
            #expect(fixture.simulator.acceptedCount == 1)
        }
    }

    @Test func slowerThanTheTimeoutIsTransient() async throws {
        try await WebPushFixture.with(options: ["timeout": "0.2"]) { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            fixture.simulator.injectNext([.delay(milliseconds: 1500)])
            let outcome = try await fixture.deliver(sampleEvent(), to: subscription)
            #expect(outcome.outcome == .transient)
            #expect(outcome.status == nil)
        }
    }

    @Test func subscriptionRestrictedToAnotherKeyIsASubscriberFailure() async throws {
        try await WebPushFixture.with { fixture in
            let restricted = try fixture.simulator.makeSubscription(applicationServerKey: VAPIDKey().publicKeyBase64URL)
            let ours = try fixture.simulator.makeSubscription(applicationServerKey: fixture.key.publicKeyBase64URL)

            let refused = try await fixture.deliver(sampleEvent(), to: restricted)
            let accepted = try await fixture.deliver(sampleEvent(), to: ours)

            #expect(refused.outcome == .subscriberFailure)
            #expect(refused.status == 403)
            #expect(accepted.outcome == .delivered)
            #expect(fixture.simulator.rejections().map(\.status) == [403])
        }
    }

    @Test func tokenForAnotherAudienceIsASubscriberFailure() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            // The same service reached as `localhost`: Herald signs for that origin, the service expects its own.
            let elsewhere = try #require(WebPushSubscription(
                endpoint: subscription.endpoint.replacingOccurrences(of: "127.0.0.1", with: "localhost"),
                p256dh: subscription.p256dh, auth: subscription.auth))
            let target = DeliveryTarget(subscriberID: .random(), token: elsewhere.canonicalJSON)

            let outcome = try #require(await fixture.provider.deliver(sampleEvent(), variant: MessageVariant(), to: target))

            #expect(outcome.outcome == .subscriberFailure)
            #expect(outcome.status == 403)
            let rejection = try #require(fixture.simulator.rejections().first)
            #expect(rejection.reason.contains("aud https://localhost"))
        }
    }

    @Test func unreachableServiceIsTransient() async throws {
        try await WebPushFixture.with { fixture in
            let subscription = try fixture.simulator.makeSubscription()
            await fixture.simulator.stop()
            let outcome = try await fixture.deliver(sampleEvent(), to: subscription)
            #expect(outcome.outcome == .transient)
            #expect(outcome.status == nil)
        }
    }

    @Test func seededFaultsStrikeTheSameRequestsEveryRun() async throws {
        var runs: [[DeliveryOutcome.Class]] = []
        for _ in 0..<2 {
            try await WebPushFixture.with { fixture in
                let subscription = try fixture.simulator.makeSubscription()
                fixture.simulator.setFaults(.init(goneRate: 0.25, internalServerErrorRate: 0.25))
                var classes: [DeliveryOutcome.Class] = []
                for _ in 0..<12 { classes.append(try await fixture.deliver(sampleEvent(), to: subscription).outcome) }
                runs.append(classes)
            }
        }
        #expect(runs[0] == runs[1])
        #expect(runs[0].contains(.delivered))
        #expect(runs[0].contains(.deadToken) || runs[0].contains(.transient))
    }
}
