import HeraldCore
import HeraldWNS
import NIOCore
import OrderedCollections
import Testing

/// The MPNS bodies of pushd-api.md §10.6.
@Suite struct MPNSRendererTests {
    static let prologue = #"<?xml version="1.0" encoding="utf-8"?><wp:Notification xmlns:wp="WPNotification">"#

    func body(_ result: RenderResult<MPNSMessage>) throws -> String {
        guard case .send(let message) = result else {
            Issue.record("expected a message, got \(result)")
            throw CancellationError()
        }
        return String(buffer: message.body)
    }

    @Test func toastHasBothTextsAndNoParamWithoutTemplate() throws {
        let renderer = MPNSRenderer(type: .toast)
        let variant = renderer.variant(lang: "fr", silent: false, version: "8.0")
        #expect(variant == MessageVariant(lang: "fr"))
        #expect(
            try body(renderer.render(.sample(), for: variant))
                == Self.prologue + "<wp:Toast><wp:Text1>But</wp:Text1><wp:Text2>L&apos;équipe A marque</wp:Text2></wp:Toast></wp:Notification>")
    }

    @Test func emptyElementsAreLeftOut() throws {
        let renderer = MPNSRenderer(type: .toast)
        #expect(
            try body(renderer.render(.sample(title: [:]), for: MessageVariant()))
                == Self.prologue + "<wp:Toast><wp:Text2>Team A scores</wp:Text2></wp:Toast></wp:Notification>")
    }

    @Test(arguments: [("7.5", true), ("8.0", true), ("10", true), ("7.0", false), ("7", false), ("abc", false), ("", false), (nil, false)] as [(String?, Bool)])
    func paramNeedsVersion75(version: String?, expected: Bool) throws {
        let renderer = MPNSRenderer(type: .toast, paramTemplate: Template("/Page.xaml?match=${var.match}&e=${event.name}"))
        let rendered = try body(renderer.render(.sample(), for: renderer.variant(lang: nil, silent: false, version: version)))
        #expect(rendered.contains("<wp:Param>/Page.xaml?match=42&amp;e=sport</wp:Param>") == expected)
    }

    @Test func aFailingParamTemplateSkipsTheSubscriber() throws {
        let renderer = MPNSRenderer(type: .toast, paramTemplate: Template("${data.nothing}"))
        guard case .fail(let outcome) = renderer.render(.sample(), for: renderer.variant(lang: nil, silent: false, version: "7.5")) else {
            Issue.record("expected a failure")
            return
        }
        #expect(outcome.outcome == .messageFailure)
        // Subscribers below 7.5 never use the template, so they still get the toast.
        #expect(try body(renderer.render(.sample(), for: renderer.variant(lang: nil, silent: false, version: "7.0"))).contains("Goal"))
    }

    @Test func silentToastsAreNotSent() {
        let renderer = MPNSRenderer(type: .toast)
        guard case .skip = renderer.render(.sample(), for: renderer.variant(lang: nil, silent: true, version: nil)) else {
            Issue.record("expected a skip")
            return
        }
    }

    @Test func tileWritesMappedPropertiesInOrder() throws {
        let mapping: OrderedDictionary<MPNSTileProperty, Template> = [
            .title: Template("${data.score}"), .count: Template("3"), .id: Template("/Main.xaml?m=${var.match}"),
            .backgroundImage: Template("/bg.png"), .backContent: Template("${var.missing}"),
            .wideBackContent: Template("wide"),
        ]
        let renderer = MPNSRenderer(type: .tile, tileMapping: mapping)
        // Silent subscriptions get tiles too; the language does not matter.
        let old = renderer.variant(lang: "fr", silent: true, version: "7.5")
        #expect(old == MessageVariant())
        #expect(
            try body(renderer.render(.sample(), for: old))
                == Self.prologue
                + #"<wp:Tile Id="/Main.xaml?m=42"><wp:BackgroundImage>/bg.png</wp:BackgroundImage><wp:Count>3</wp:Count><wp:Title>2-1</wp:Title></wp:Tile></wp:Notification>"#
        )
        let flip = renderer.variant(lang: nil, silent: false, version: "8.0")
        #expect(
            try body(renderer.render(.sample(), for: flip))
                == Self.prologue
                + #"<wp:Tile Template="FlipTile" Id="/Main.xaml?m=42"><wp:BackgroundImage>/bg.png</wp:BackgroundImage><wp:Count>3</wp:Count><wp:Title>2-1</wp:Title><wp:WideBackContent>wide</wp:WideBackContent></wp:Tile></wp:Notification>"#
        )
    }

    @Test func tileWithoutIdHasNoIdAttribute() throws {
        let renderer = MPNSRenderer(type: .tile, tileMapping: [.title: Template("T")])
        #expect(try body(renderer.render(.sample(), for: MessageVariant())).contains("<wp:Tile><wp:Title>T</wp:Title></wp:Tile>"))
    }

    @Test func rawIsTheJSONOfTheData() throws {
        let renderer = MPNSRenderer(type: .raw)
        #expect(try body(renderer.render(.sample(), for: renderer.variant(lang: nil, silent: true, version: "8.0"))) == #"{"score":"2-1"}"#)
    }

    @Test func typesSetTheHeaders() {
        #expect(MPNSNotificationType.toast.notificationClass == 2)
        #expect(MPNSNotificationType.toast.target == "toast")
        #expect(MPNSNotificationType.tile.notificationClass == 1)
        #expect(MPNSNotificationType.tile.target == "token")
        #expect(MPNSNotificationType.raw.notificationClass == 3)
        #expect(MPNSNotificationType.raw.target == nil)
    }

    @Test func mappingKeysIgnoreCaseAndUnderscores() {
        #expect(MPNSTileProperty(mappingKey: "backBackgroundImage") == .backBackgroundImage)
        #expect(MPNSTileProperty(mappingKey: "back_background_image") == .backBackgroundImage)
        #expect(MPNSTileProperty(mappingKey: "ID") == .id)
        #expect(MPNSTileProperty(mappingKey: "colour") == nil)
    }
}
