/// The MPNS notification types, chosen per provider by its `type` option (pushd-api.md §10.6).
public enum MPNSNotificationType: String, Sendable, Hashable, CaseIterable {
    /// A toast: `wp:Text1`, `wp:Text2`, optionally `wp:Param`.
    case toast
    /// A tile update from the provider's `tile_mapping`.
    case tile
    /// Raw bytes handed to the app: the JSON of the event's data.
    case raw

    /// `X-NotificationClass` for immediate delivery (2 toast, 1 tile, 3 raw); the delayed classes (+10, +20)
    /// are never used, as rs/pushd never used them.
    public var notificationClass: Int {
        switch self {
        case .toast: 2
        case .tile: 1
        case .raw: 3
        }
    }

    /// `X-WindowsPhone-Target` (`toast`, `token` for tiles), absent for raw.
    public var target: String? {
        switch self {
        case .toast: "toast"
        case .tile: "token"
        case .raw: nil
        }
    }
}
