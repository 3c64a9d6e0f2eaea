import HeraldCore
import NIOCore
import OrderedCollections

/// Maps a published event onto an MPNS body, as pushd-api.md §10.6 specifies.
///
/// | type | body | silent |
/// |---|---|---|
/// | toast | `wp:Toast` with `wp:Text1` (title), `wp:Text2` (message) and, for `version` ≥ 7.5, `wp:Param` from `param_template`; empty elements left out | nothing sent |
/// | tile | `wp:Tile` with the `tile_mapping` properties that compile, flip-tile ones (and `Template="FlipTile"`) for `version` ≥ 8.0 | sent |
/// | raw | the JSON of the data map | sent |
public struct MPNSRenderer: Sendable {
    /// The XML declaration and root every toast and tile starts with.
    static let prologue = "<?xml version=\"1.0\" encoding=\"utf-8\"?><wp:Notification xmlns:wp=\"WPNotification\">"

    /// The provider's notification type.
    public var type: MPNSNotificationType
    /// The toast `wp:Param` template (`param_template`).
    public var paramTemplate: Template?
    /// The tile properties by property (`tile_mapping`).
    public var tileMapping: OrderedDictionary<MPNSTileProperty, Template>

    /// Creates a renderer.
    public init(type: MPNSNotificationType, paramTemplate: Template? = nil, tileMapping: OrderedDictionary<MPNSTileProperty, Template> = [:]) {
        self.type = type
        self.paramTemplate = paramTemplate
        self.tileMapping = tileMapping
    }

    /// The facts this type renders by. The OS version is reduced to the threshold that matters (`"7.5"` for a
    /// toast with a param template, `"8.0"` for a tile, else none), so that subscribers share renderings.
    public func variant(lang: String?, silent: Bool, version: String?) -> MessageVariant {
        let number = MPNSOSVersion.number(version)
        switch type {
        case .toast:
            let withParam = paramTemplate != nil && number >= MPNSOSVersion.toastParameter
            return MessageVariant(lang: lang, silent: silent, version: withParam ? "7.5" : nil)
        case .tile:
            // Tiles are sent to silent subscriptions too, and their templates know no language.
            return MessageVariant(version: number >= MPNSOSVersion.flipTile ? "8.0" : nil)
        case .raw:
            return MessageVariant()
        }
    }

    /// Renders one variant.
    public func render(_ event: PublishedEvent, for variant: MessageVariant) -> RenderResult<MPNSMessage> {
        let body: String
        let version = MPNSOSVersion.number(variant.version)
        switch type {
        case .toast:
            if variant.silent { return .skip(reason: "silent subscription: no toast") }
            var param: String?
            if let paramTemplate, version >= MPNSOSVersion.toastParameter {
                do {
                    param = try paramTemplate.render(event: event.event, data: event.data, vars: event.vars)
                } catch {
                    return .fail(DeliveryOutcome(.messageFailure, reason: "param_template: \(error.reason)"))
                }
            }
            body = Self.toastXML(
                title: event.title.resolve(lang: variant.lang), message: event.message.resolve(lang: variant.lang), param: param)
        case .tile:
            var values: OrderedDictionary<MPNSTileProperty, String> = [:]
            for (property, template) in tileMapping where !property.isFlipTileOnly || version >= MPNSOSVersion.flipTile {
                // A property whose template fails is left out; the rest of the tile is still worth sending.
                if let value = try? template.render(event: event.event, data: event.data, vars: event.vars) {
                    values[property] = value
                }
            }
            body = Self.tileXML(values, flipTile: version >= MPNSOSVersion.flipTile)
        case .raw:
            var json = JSONWriter()
            json.object(event.data)
            body = json.text
        }
        return .send(MPNSMessage(body: ByteBuffer(string: body), type: type))
    }

    /// The toast body; an element whose value is empty or missing is left out.
    static func toastXML(title: String?, message: String?, param: String?) -> String {
        var xml = prologue + "<wp:Toast>"
        for (element, value) in [("wp:Text1", title), ("wp:Text2", message), ("wp:Param", param)] {
            guard let value, !value.isEmpty else { continue }
            xml += "<\(element)>\(XMLEscaping.text(value))</\(element)>"
        }
        return xml + "</wp:Toast></wp:Notification>"
    }

    /// The tile body: `Template="FlipTile"` before `Id`, then the elements in ``MPNSTileProperty`` order.
    static func tileXML(_ values: OrderedDictionary<MPNSTileProperty, String>, flipTile: Bool) -> String {
        var xml = prologue + "<wp:Tile"
        if flipTile { xml += " Template=\"FlipTile\"" }
        if let id = values[.id] { xml += " Id=\"\(XMLEscaping.attribute(id))\"" }
        xml += ">"
        for property in MPNSTileProperty.allCases where property != .id {
            guard let value = values[property] else { continue }
            xml += "<wp:\(property.rawValue)>\(XMLEscaping.text(value))</wp:\(property.rawValue)>"
        }
        return xml + "</wp:Tile></wp:Notification>"
    }
}
