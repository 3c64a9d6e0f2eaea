import Crypto
import HeraldCore
import NIOCore

/// Maps a published event onto a WNS body and headers, as pushd-api.md §10.5 specifies.
///
/// | type | body | silent |
/// |---|---|---|
/// | toast | `<toast launch="L"><visual><binding template="ToastText02"><text id="1">TITLE</text><text id="2">MESSAGE</text></binding></visual></toast>` | nothing sent |
/// | tile | `TileMedium` and `TileWide` bindings with the title and message (empty texts left out) | nothing sent |
/// | badge | `<badge value="N"/>` with N from the badge logic; no number, nothing sent | sent |
/// | raw | the JSON of the data map | sent |
public struct WNSRenderer: Sendable {
    /// The largest body WNS accepts (larger ones are answered `413`).
    public static let maximumBodyBytes = 5000
    /// The longest `X-WNS-Tag` WNS accepts.
    public static let maximumTagLength = 16

    /// The provider's notification type.
    public var type: WNSNotificationType
    /// The toast `launch` attribute (`launch_template`), compiled per publish.
    public var launchTemplate: Template?

    /// Creates a renderer.
    public init(type: WNSNotificationType, launchTemplate: Template? = nil) {
        self.type = type
        self.launchTemplate = launchTemplate
    }

    /// The facts this type renders by: language and silence for toast and tile, the badge for badge, nothing for raw.
    ///
    /// Herald adds `launch` for every subscriber (pushd-api.md §17), so the OS version is never used.
    public func variant(lang: String?, silent: Bool, badge: Int?) -> MessageVariant {
        switch type {
        case .toast, .tile: MessageVariant(lang: lang, silent: silent)
        case .badge: MessageVariant(badge: badge)
        case .raw: MessageVariant()
        }
    }

    /// Renders one variant; `now` is Unix seconds, for `expiration`.
    public func render(_ event: PublishedEvent, for variant: MessageVariant, now: Int64) -> RenderResult<WNSMessage> {
        let body: String
        switch type {
        case .toast:
            if variant.silent { return .skip(reason: "silent subscription: no toast") }
            var launch: String?
            if let launchTemplate {
                do {
                    launch = try launchTemplate.render(event: event.event, data: event.data, vars: event.vars)
                } catch {
                    return .fail(DeliveryOutcome(.messageFailure, reason: "launch_template: \(error.reason)"))
                }
            }
            body = Self.toastXML(
                title: event.title.resolve(lang: variant.lang) ?? "",
                message: event.message.resolve(lang: variant.lang) ?? "",
                launch: launch)
        case .tile:
            if variant.silent { return .skip(reason: "silent subscription: no tile") }
            body = Self.tileXML(
                title: event.title.resolve(lang: variant.lang) ?? "",
                message: event.message.resolve(lang: variant.lang) ?? "")
        case .badge:
            guard let badge = variant.badge else { return .skip(reason: "no badge number") }
            body = "<badge value=\"\(badge)\"/>"
        case .raw:
            var json = JSONWriter()
            json.object(event.data)
            body = json.text
        }
        let bytes = ByteBuffer(string: body)
        guard bytes.readableBytes <= Self.maximumBodyBytes else {
            return .fail(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
        }
        let tag = (type == .toast || type == .tile) ? event.collapseKey.map(Self.tag(forCollapseKey:)) : nil
        return .send(WNSMessage(body: bytes, type: type, timeToLive: Self.timeToLive(of: event, now: now), tag: tag))
    }

    /// The toast body; `launch` only when the provider has a launch template.
    static func toastXML(title: String, message: String, launch: String?) -> String {
        var xml = "<toast"
        if let launch { xml += " launch=\"\(XMLEscaping.attribute(launch))\"" }
        xml += "><visual><binding template=\"ToastText02\"><text id=\"1\">\(XMLEscaping.text(title))</text>"
        xml += "<text id=\"2\">\(XMLEscaping.text(message))</text></binding></visual></toast>"
        return xml
    }

    /// The tile body: a medium and a wide binding with the same texts, empty ones left out.
    static func tileXML(title: String, message: String) -> String {
        var texts = ""
        for text in [title, message] where !text.isEmpty {
            texts += "<text>\(XMLEscaping.text(text))</text>"
        }
        let medium = "<binding template=\"TileMedium\">\(texts)</binding>"
        let wide = "<binding template=\"TileWide\">\(texts)</binding>"
        return "<tile><visual>\(medium)\(wide)</visual></tile>"
    }

    /// Seconds WNS may keep the notification: what is left until `expiration`, else `ttl`.
    static func timeToLive(of event: PublishedEvent, now: Int64) -> Int? {
        if let expiration = event.expiration { return Int(max(0, expiration - now)) }
        return event.ttl
    }

    /// `X-WNS-Tag` for a collapse key: the key itself when it is at most 16 letters and digits, else 16 hex digits
    /// of its SHA-256, so that equal keys still replace each other and no key is refused.
    static func tag(forCollapseKey key: String) -> String {
        let isPlain = key.utf8.count <= maximumTagLength && !key.isEmpty && key.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        if isPlain { return key }
        let digest = SHA256.hash(data: Array(key.utf8))
        return digest.prefix(maximumTagLength / 2).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
