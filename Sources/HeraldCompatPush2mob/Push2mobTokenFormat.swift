/// How APNs tokens are printed in `feedback` replies (`device_token_format`, compat.md §3.1).
enum Push2mobTokenFormat: String, Sendable, Equatable {
    /// 64 lowercase hex characters.
    case hex
    /// Standard base64 with padding (44 characters): push2mob's own, the default.
    case base64

    /// `token` (lowercase hex, as stored) in this format; a token that is not hex is printed as stored.
    func print(_ token: String) -> String {
        switch self {
        case .hex: return token.lowercased()
        case .base64:
            guard token.utf8.count == 64, let device = try? Push2mobDeviceToken(token[...]) else { return token }
            return device.base64
        }
    }
}
