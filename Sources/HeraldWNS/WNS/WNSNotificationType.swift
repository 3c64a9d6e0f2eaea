/// The four WNS notification types (`X-WNS-Type`), chosen per provider by its `type` option.
public enum WNSNotificationType: String, Sendable, Hashable, CaseIterable {
    /// A toast (`wns/toast`): title and message, optionally a `launch` argument.
    case toast
    /// A live tile update (`wns/tile`).
    case tile
    /// A badge number on the tile (`wns/badge`); the badge logic of pushd-api.md §7 applies.
    case badge
    /// Raw bytes handed to the app (`wns/raw`): the JSON of the event's data.
    case raw

    /// The `X-WNS-Type` header value.
    public var headerValue: String { "wns/\(rawValue)" }

    /// The `Content-Type` WNS requires for this type (providers.md §4.2).
    public var contentType: String { self == .raw ? "application/octet-stream" : "text/xml" }

    /// Whether the body is XML with a root element named after the type.
    public var isXML: Bool { self != .raw }
}
