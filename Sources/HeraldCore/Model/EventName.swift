/// A validated event name: `^[a-zA-Z0-9@:._-]{1,100}$` after percent-decoding.
///
/// Two names are special when publishing: `broadcast` (every subscriber) and
/// `unicast:<subscriber id>` (one subscriber). They are still ordinary names for
/// subscriptions.
public struct EventName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Who a publish to this name reaches.
    public enum Audience: Hashable, Sendable {
        /// The event's subscribers, each with its subscription's `ignore_message`.
        case subscribers
        /// Every registered subscriber, none silent.
        case broadcast
        /// The one subscriber with this id, not silent.
        case unicast(SubscriberID)
    }

    /// The name as given (already percent-decoded).
    public let rawValue: String

    /// Validates `raw`; `nil` when it does not match the event-name pattern.
    public init?(_ raw: String) {
        guard Self.isValid(raw) else { return nil }
        self.rawValue = raw
    }

    /// The name of the event `POST /subscriber/:id/test` pushes.
    public static let test = EventName(unchecked: "test")
    /// The name that reaches every subscriber.
    public static let broadcast = EventName(unchecked: "broadcast")

    /// Whether `raw` matches `^[a-zA-Z0-9@:._-]{1,100}$`.
    public static func isValid(_ raw: String) -> Bool {
        let bytes = raw.utf8
        guard !bytes.isEmpty, bytes.count <= 100 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// The name of the unicast event for `id`.
    public static func unicast(_ id: SubscriberID) -> EventName {
        EventName(unchecked: "unicast:" + id.rawValue)
    }

    private init(unchecked: String) {
        self.rawValue = unchecked
    }

    /// Who a publish to this name reaches.
    public var audience: Audience {
        if rawValue == "broadcast" { return .broadcast }
        if rawValue.hasPrefix("unicast:") {
            return .unicast(SubscriberID(rawValue: String(rawValue.dropFirst("unicast:".count))))
        }
        return .subscribers
    }

    /// Whether this is `broadcast` or `unicast:<id>`, whose statistics follow special rules.
    public var isSpecial: Bool { audience != .subscribers }

    public var description: String { rawValue }

    public static func < (lhs: EventName, rhs: EventName) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }
}
