/// The `apns-push-type` values and the topic suffix each needs (providers.md §1.2).
public enum APNsPushType: String, Sendable, CaseIterable {
    case alert, background, voip, complication, fileprovider, location, liveactivity, pushtotalk, mdm, widgets, controls

    /// What is appended to the bundle id to form `apns-topic`.
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .location: ".location-query"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// The largest body APNs accepts for this type.
    public var maxPayloadBytes: Int { self == .voip ? 5120 : 4096 }
}
