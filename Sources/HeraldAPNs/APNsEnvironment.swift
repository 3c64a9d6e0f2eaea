/// Apple's two push environments: an app built for development gets sandbox device tokens, which only the
/// sandbox host accepts (`BadDeviceToken` elsewhere).
public enum APNsEnvironment: String, Sendable, Hashable {
    /// `api.push.apple.com`: App Store, TestFlight and Ad Hoc builds.
    case production
    /// `api.sandbox.push.apple.com`: builds signed for development.
    case sandbox

    /// Apple's host for this environment.
    public var host: String {
        switch self {
        case .production: "api.push.apple.com"
        case .sandbox: "api.sandbox.push.apple.com"
        }
    }

    /// Apple's broadcast channel management host for this environment (iOS 18).
    public var broadcastHost: String {
        switch self {
        case .production: "api-manage-broadcast.push.apple.com"
        case .sandbox: "api-manage-broadcast.sandbox.push.apple.com"
        }
    }

    /// Its port: 2196 in production, 2195 in the sandbox.
    public var broadcastPort: Int { self == .production ? 2196 : 2195 }

    /// The other environment.
    var other: APNsEnvironment { self == .production ? .sandbox : .production }
}
