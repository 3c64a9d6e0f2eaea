import HeraldCore
import HeraldSimulators
import HeraldWNS
import Testing

/// The `mpns` kind against the MPNS simulator, over real TLS with the generated CA.
@Suite struct MPNSIntegrationTests {
    @Test func toastIsDeliveredWithItsHeadersAndParam() async throws {
        try await MPNSFixture.with { fixture in
            let provider = try await fixture.provider(extra: ["param_template": .scalar("/Match.xaml?id=${var.match}")])
            let channel = fixture.simulator.makeChannel()
            #expect(provider.normalizeToken(TokenInput(token: .string(channel)))?.token == channel)
            #expect(provider.normalizeToken(TokenInput(token: .string("https://127.0.0.1:1/x"))) == nil)
            let outcome = await deliver(provider, .sample(), to: channel, lang: "fr", version: "7.5")
            #expect(outcome?.outcome == .delivered, "\(outcome?.reason ?? "")")
            let accepted = fixture.simulator.accepted(channel: channel)
            try #require(accepted.count == 1)
            #expect(accepted[0].notificationClass == 2)
            #expect(accepted[0].target == "toast")
            #expect(accepted[0].header("Accept") == "application/*")
            #expect(accepted[0].body.contains("<wp:Text1>But</wp:Text1>"))
            #expect(accepted[0].body.contains("<wp:Param>/Match.xaml?id=42</wp:Param>"))
            await provider.shutdown()
        }
    }

    @Test func anExpiredSubscriptionIsADeadToken() async throws {
        try await MPNSFixture.with { fixture in
            let provider = try await fixture.provider()
            let channel = fixture.simulator.makeChannel()
            fixture.simulator.expireChannel(channel)
            let outcome = await deliver(provider, .sample(), to: channel)
            #expect(outcome?.outcome == .deadToken)
            #expect(outcome?.status == 404)
            #expect(outcome?.reason == "Dropped/Expired/Disconnected")
            #expect(fixture.simulator.statistics().accepted == 0)
            await provider.shutdown()
        }
    }

    @Test func tilesAndRawNotificationsAreAccepted() async throws {
        try await MPNSFixture.with { fixture in
            let tile = try await fixture.provider(
                type: "tile", extra: ["tile_mapping": .map(["title": .scalar("${data.score}"), "count": .scalar("1")])])
            let raw = try await fixture.provider(type: "raw")
            let channel = fixture.simulator.makeChannel()
            #expect(await deliver(tile, .sample(), to: channel, silent: true, version: "8.0")?.outcome == .delivered)
            #expect(await deliver(raw, .sample(), to: channel)?.outcome == .delivered)
            let accepted = fixture.simulator.accepted(channel: channel)
            #expect(accepted.map(\.notificationClass) == [1, 3])
            #expect(accepted.map(\.target) == ["token", nil])
            #expect(accepted.first?.body.contains(#"<wp:Tile Template="FlipTile"><wp:Count>1</wp:Count><wp:Title>2-1</wp:Title></wp:Tile>"#) == true)
            await tile.shutdown()
            await raw.shutdown()
        }
    }

    @Test func inactiveDevicesThrottlingAndFullQueuesAreTransient() async throws {
        try await MPNSFixture.with { fixture in
            let provider = try await fixture.provider()
            let inactive = fixture.simulator.makeChannel()
            let full = fixture.simulator.makeChannel()
            fixture.simulator.setState(.inactive, ofChannel: inactive)
            fixture.simulator.setState(.queueFull, ofChannel: full)
            let first = await deliver(provider, .sample(), to: inactive)
            #expect(first?.outcome == .transient)
            #expect(first?.status == 412)
            #expect(await deliver(provider, .sample(), to: full)?.outcome == .transient)
            let active = fixture.simulator.makeChannel()
            fixture.simulator.injectNext([.throttle(retryAfter: 60), .serviceUnavailable])
            let throttled = await deliver(provider, .sample(), to: active)
            #expect(throttled?.outcome == .transient)
            #expect(throttled?.status == 406)
            #expect(throttled?.retryAfter == .seconds(60))
            #expect(await deliver(provider, .sample(), to: active)?.status == 503)
            #expect(await deliver(provider, .sample(), to: active)?.outcome == .delivered)
            await provider.shutdown()
        }
    }
}
