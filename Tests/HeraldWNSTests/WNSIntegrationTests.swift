import HeraldCore
import HeraldSimulators
import HeraldWNS
import Testing

/// The `wns` kind against the WNS simulator, over real TLS with the generated CA.
@Suite struct WNSIntegrationTests {
    @Test func toastIsDeliveredWithTokenHeadersAndXML() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider(extra: ["launch_template": "match=${var.match}"])
            let channel = fixture.simulator.makeChannel()
            #expect(provider.normalizeToken(TokenInput(token: .string(channel)))?.token == channel)
            var event = PublishedEvent.sample()
            event.ttl = 600
            event.collapseKey = "score"
            let outcome = await deliver(provider, event, to: channel, lang: "fr")
            #expect(outcome?.outcome == .delivered)
            let accepted = fixture.simulator.accepted(channel: channel)
            try #require(accepted.count == 1)
            #expect(accepted[0].type == "wns/toast")
            #expect(accepted[0].header("Authorization")?.hasPrefix("Bearer Eg") == true)
            #expect(accepted[0].header("Content-Type") == "text/xml")
            #expect(accepted[0].header("X-WNS-TTL") == "600")
            #expect(accepted[0].header("X-WNS-Tag") == "score")
            #expect(accepted[0].header("Content-Length") == String(accepted[0].body.utf8.count))
            #expect(accepted[0].body.hasPrefix(#"<toast launch="match=42"><visual><binding template="ToastText02"><text id="1">But</text>"#))
            await provider.shutdown()
        }
    }

    @Test func manySendsShareOneAccessToken() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider()
            let channels = (0..<40).map { _ in fixture.simulator.makeChannel() }
            let outcomes = await deliver(provider, .sample(), to: channels)
            #expect(outcomes.allSatisfy { $0?.outcome == .delivered })
            let statistics = fixture.simulator.statistics()
            #expect(statistics.tokenRequests == 1)
            #expect(statistics.notificationRequests == 40)
            #expect(statistics.accepted == 40)
            await provider.shutdown()
        }
    }

    @Test func aRevokedTokenIsRefreshedOnceAndTheSendRetried() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider()
            let channel = fixture.simulator.makeChannel()
            #expect(await deliver(provider, .sample(), to: channel)?.outcome == .delivered)
            fixture.simulator.revokeTokens()
            let outcomes = await deliver(provider, .sample(), to: [channel, channel, channel])
            #expect(outcomes.allSatisfy { $0?.outcome == .delivered })
            let statistics = fixture.simulator.statistics()
            // Several sends saw the 401, but only one new token was fetched.
            #expect(statistics.tokenRequests == 2)
            #expect((statistics.rejections[401] ?? 0) >= 1)
            #expect(statistics.accepted == 4)
            await provider.shutdown()
        }
    }

    @Test func a401AfterTheRefreshIsAConfigurationFailure() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider()
            let channel = fixture.simulator.makeChannel()
            fixture.simulator.injectNext([.status(401), .status(401)])
            let outcome = await deliver(provider, .sample(), to: channel)
            #expect(outcome?.outcome == .configurationFailure)
            #expect(outcome?.status == 401)
            #expect(fixture.simulator.statistics().tokenRequests == 2)
            await provider.shutdown()
        }
    }

    @Test func expiredAndUnknownChannelsAreDeadTokens() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider()
            let expired = fixture.simulator.makeChannel()
            let unknown = fixture.simulator.makeChannel()
            fixture.simulator.expireChannel(expired)
            fixture.simulator.removeChannel(unknown)
            let outcomes = await deliver(provider, .sample(), to: [expired, unknown])
            #expect(outcomes[0]?.outcome == .deadToken)
            #expect(outcomes[0]?.status == 410)
            #expect(outcomes[0]?.reason == "The channel expired")
            #expect(outcomes[1]?.outcome == .deadToken)
            #expect(outcomes[1]?.status == 404)
            await provider.shutdown()
        }
    }

    @Test func throttlingAndOutagesAreTransientWithRetryAfter() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider()
            let channel = fixture.simulator.makeChannel()
            fixture.simulator.injectNext([.throttle(retryAfter: 30), .status(429, retryAfter: 5), .status(503, retryAfter: 2), .status(500)])
            var outcomes: [DeliveryOutcome?] = []
            for _ in 0..<4 { outcomes.append(await deliver(provider, .sample(), to: channel)) }
            #expect(outcomes.map { $0?.outcome } == [.transient, .transient, .transient, .transient])
            #expect(outcomes.map { $0?.status } == [406, 429, 503, 500])
            #expect(outcomes.map { $0?.retryAfter } == [.seconds(30), .seconds(5), .seconds(2), nil])
            #expect(await deliver(provider, .sample(), to: channel)?.outcome == .delivered)
            await provider.shutdown()
        }
    }

    @Test func refusedCredentialsAreAConfigurationFailure() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider(secret: "wrong")
            let outcome = await deliver(provider, .sample(), to: fixture.simulator.makeChannel())
            #expect(outcome?.outcome == .configurationFailure)
            #expect(outcome?.reason == "access token refused: HTTP 400 invalid_client")
            #expect(fixture.simulator.statistics().notificationRequests == 0)
            await provider.shutdown()
        }
    }

    @Test func anUnavailableTokenEndpointIsTransient() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider()
            fixture.simulator.injectNextTokenAnswers([.status(503, retryAfter: 9)])
            let channel = fixture.simulator.makeChannel()
            let outcome = await deliver(provider, .sample(), to: channel)
            #expect(outcome?.outcome == .transient)
            #expect(outcome?.retryAfter == .seconds(9))
            // The failure is not cached: the next send gets a token.
            #expect(await deliver(provider, .sample(), to: channel)?.outcome == .delivered)
            await provider.shutdown()
        }
    }

    @Test func aChannelOfAnotherAppIsASubscriberFailure() async throws {
        try await WNSFixture.with(configure: { $0.credentials["ms-app://other"] = "other-secret" }) { fixture in
            let provider = try await fixture.provider()
            let outcome = await deliver(provider, .sample(), to: fixture.simulator.makeChannel(clientID: "ms-app://other"))
            #expect(outcome?.outcome == .subscriberFailure)
            #expect(outcome?.status == 403)
            await provider.shutdown()
        }
    }

    @Test func badgeProvidersCountAndSendTheBadge() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider(type: "badge")
            #expect(provider.countsBadges)
            let channel = fixture.simulator.makeChannel()
            #expect(await deliver(provider, .sample(), to: channel, silent: true, badge: 5)?.outcome == .delivered)
            let accepted = fixture.simulator.accepted(channel: channel)
            #expect(accepted.map(\.body) == [#"<badge value="5"/>"#])
            #expect(accepted.first?.type == "wns/badge")
            await provider.shutdown()
        }
    }

    @Test func rawAndTileProvidersAreAccepted() async throws {
        try await WNSFixture.with { fixture in
            let raw = try await fixture.provider(type: "raw")
            let tile = try await fixture.provider(type: "tile")
            #expect(!raw.countsBadges)
            let channel = fixture.simulator.makeChannel()
            #expect(await deliver(raw, .sample(), to: channel)?.outcome == .delivered)
            #expect(await deliver(tile, .sample(), to: channel)?.outcome == .delivered)
            let accepted = fixture.simulator.accepted(channel: channel)
            #expect(accepted.map(\.type) == ["wns/raw", "wns/tile"])
            #expect(accepted.first?.header("Content-Type") == "application/octet-stream")
            #expect(accepted.first?.body == #"{"score":"2-1"}"#)
            await raw.shutdown()
            await tile.shutdown()
        }
    }

    @Test func toastsToAnOfflineDeviceAreDroppedButAccepted() async throws {
        try await WNSFixture.with { fixture in
            let provider = try await fixture.provider()
            let channel = fixture.simulator.makeChannel()
            fixture.simulator.setState(.offline, ofChannel: channel)
            let outcome = await deliver(provider, .sample(), to: channel)
            #expect(outcome?.outcome == .delivered)
            #expect(outcome?.reason == "dropped")
            #expect(fixture.simulator.statistics().dropped == 1)
            await provider.shutdown()
        }
    }
}
