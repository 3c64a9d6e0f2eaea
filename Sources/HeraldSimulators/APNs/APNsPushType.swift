/// The values of `apns-push-type` and the topic each one needs (providers.md §1.2).
enum APNsPushType: String, CaseIterable, Sendable {
    case alert
    case background
    case voip
    case complication
    case fileprovider
    case location
    case liveactivity
    case pushtotalk
    case mdm
    case widgets
    case controls

    /// What follows the bundle id in `apns-topic` for this push type; `nil` for `mdm`, whose topic is the UID of
    /// the MDM push certificate rather than a bundle id.
    var topicSuffix: String? {
        switch self {
        case .alert, .background: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .location: ".location-query"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .mdm: nil
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// The largest body APNs accepts for this push type (§1.3): VoIP gets 5120 bytes, everything else 4096.
    var maximumPayloadSize: Int {
        self == .voip ? 5120 : 4096
    }

    /// Whether certificate-authenticated connections may send this push type (§1.6).
    var isAllowedWithCertificate: Bool {
        self != .location && self != .liveactivity
    }

    /// The bundle id `topic` addresses when it carries this push type's suffix, else the topic itself.
    func bundleID(ofTopic topic: String) -> Substring {
        guard let suffix = self.topicSuffix, !suffix.isEmpty, topic.hasSuffix(suffix) else { return Substring(topic) }
        return topic.dropLast(suffix.count)
    }
}
