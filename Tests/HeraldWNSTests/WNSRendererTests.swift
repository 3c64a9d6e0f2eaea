import HeraldCore
import HeraldWNS
import NIOCore
import Testing

/// The WNS bodies and headers of pushd-api.md §10.5.
@Suite struct WNSRendererTests {
    let now: Int64 = 1_700_000_000

    func message(_ result: RenderResult<WNSMessage>) throws -> WNSMessage {
        guard case .send(let message) = result else {
            Issue.record("expected a message, got \(result)")
            throw CancellationError()
        }
        return message
    }

    func body(_ message: WNSMessage) -> String { String(buffer: message.body) }

    @Test func toastHasTitleAndMessageOfTheSubscribersLanguage() throws {
        let renderer = WNSRenderer(type: .toast)
        let toast = try message(renderer.render(.sample(), for: renderer.variant(lang: "fr_BE", silent: false, badge: 3), now: now))
        #expect(
            body(toast)
                == #"<toast><visual><binding template="ToastText02"><text id="1">But</text><text id="2">L&apos;équipe A marque</text></binding></visual></toast>"#
        )
        #expect(toast.type == .toast)
        #expect(toast.type.headerValue == "wns/toast")
        #expect(toast.type.contentType == "text/xml")
        #expect(toast.timeToLive == nil)
        #expect(toast.tag == nil)
    }

    @Test func toastWithoutTitleHasAnEmptyFirstText() throws {
        let renderer = WNSRenderer(type: .toast)
        let toast = try message(renderer.render(.sample(title: [:]), for: MessageVariant(), now: now))
        #expect(body(toast).contains(#"<text id="1"></text><text id="2">Team A scores</text>"#))
    }

    @Test func launchTemplateIsCompiledForEverySubscriber() throws {
        let renderer = WNSRenderer(type: .toast, launchTemplate: Template(#"event=${event.name}&match=${var.match}&s="${data.score}""#))
        // Herald adds `launch` whatever the subscriber's version (pushd-api.md §17), so the variant ignores it.
        let variant = renderer.variant(lang: nil, silent: false, badge: nil)
        #expect(variant == MessageVariant())
        let toast = try message(renderer.render(.sample(), for: variant, now: now))
        #expect(body(toast).hasPrefix(#"<toast launch="event=sport&amp;match=42&amp;s=&quot;2-1&quot;"><visual>"#))
    }

    @Test func aFailingLaunchTemplateSendsNothingAndIsNotCounted() {
        let renderer = WNSRenderer(type: .toast, launchTemplate: Template("${var.missing}"))
        guard case .fail(let outcome) = renderer.render(.sample(), for: MessageVariant(), now: now) else {
            Issue.record("expected a failure")
            return
        }
        #expect(outcome.outcome == .messageFailure)
        #expect(outcome.reason == "launch_template: The ${var.missing} does not exist")
    }

    @Test(arguments: [WNSNotificationType.toast, .tile])
    func silentSubscriptionsGetNoToastOrTile(type: WNSNotificationType) {
        let renderer = WNSRenderer(type: type)
        guard case .skip = renderer.render(.sample(), for: renderer.variant(lang: nil, silent: true, badge: nil), now: now) else {
            Issue.record("expected a skip")
            return
        }
    }

    @Test func tileHasMediumAndWideBindingsWithoutEmptyTexts() throws {
        let renderer = WNSRenderer(type: .tile)
        let full = try message(renderer.render(.sample(), for: MessageVariant(), now: now))
        #expect(
            body(full)
                == #"<tile><visual><binding template="TileMedium"><text>Goal</text><text>Team A scores</text></binding><binding template="TileWide"><text>Goal</text><text>Team A scores</text></binding></visual></tile>"#
        )
        let untitled = try message(renderer.render(.sample(title: [:]), for: MessageVariant(), now: now))
        #expect(body(untitled).contains(#"<binding template="TileMedium"><text>Team A scores</text></binding>"#))
    }

    @Test func badgeCountsAndIsSentToSilentSubscriptions() throws {
        let renderer = WNSRenderer(type: .badge)
        let variant = renderer.variant(lang: "fr", silent: true, badge: 7)
        #expect(variant == MessageVariant(badge: 7))
        let badge = try message(renderer.render(.sample(), for: variant, now: now))
        #expect(body(badge) == #"<badge value="7"/>"#)
        #expect(badge.type.headerValue == "wns/badge")
    }

    @Test func noBadgeNumberSendsNothing() {
        let renderer = WNSRenderer(type: .badge)
        guard case .skip = renderer.render(.sample(), for: renderer.variant(lang: nil, silent: false, badge: nil), now: now) else {
            Issue.record("expected a skip")
            return
        }
    }

    @Test func rawIsTheJSONOfTheData() throws {
        let renderer = WNSRenderer(type: .raw)
        let variant = renderer.variant(lang: "fr", silent: true, badge: 2)
        #expect(variant == MessageVariant())
        let raw = try message(renderer.render(.sample(data: ["x": "1", "quote": "\"q\""]), for: variant, now: now))
        #expect(body(raw) == #"{"x":"1","quote":"\"q\""}"#)
        #expect(raw.type.contentType == "application/octet-stream")
    }

    @Test func ttlAndExpirationBecomeXWNSTTL() throws {
        let renderer = WNSRenderer(type: .raw)
        var event = PublishedEvent.sample()
        event.ttl = 3600
        #expect(try message(renderer.render(event, for: MessageVariant(), now: now)).timeToLive == 3600)
        event.expiration = now + 120
        #expect(try message(renderer.render(event, for: MessageVariant(), now: now)).timeToLive == 120)
        event.expiration = now - 5
        #expect(try message(renderer.render(event, for: MessageVariant(), now: now)).timeToLive == 0)
    }

    @Test func collapseKeyBecomesATagOfAtMost16Alphanumerics() throws {
        let renderer = WNSRenderer(type: .toast)
        var event = PublishedEvent.sample()
        event.collapseKey = "score42"
        #expect(try message(renderer.render(event, for: MessageVariant(), now: now)).tag == "score42")
        event.collapseKey = "match:42/score-updates"
        let hashed = try #require(try message(renderer.render(event, for: MessageVariant(), now: now)).tag)
        #expect(hashed.count == 16)
        #expect(hashed.allSatisfy { $0.isHexDigit })
        // Equal keys give equal tags, so notifications still replace each other.
        #expect(try message(renderer.render(event, for: MessageVariant(), now: now)).tag == hashed)
        let raw = WNSRenderer(type: .raw)
        #expect(try message(raw.render(event, for: MessageVariant(), now: now)).tag == nil)
    }

    @Test func bodiesOver5000BytesAreMessageFailures() {
        let renderer = WNSRenderer(type: .toast)
        let long = String(repeating: "é", count: 2600)
        guard case .fail(let outcome) = renderer.render(.sample(message: ["default": long]), for: MessageVariant(), now: now) else {
            Issue.record("expected a failure")
            return
        }
        #expect(outcome.outcome == .messageFailure)
        #expect(outcome.reason == "PayloadTooLarge")
    }
}
