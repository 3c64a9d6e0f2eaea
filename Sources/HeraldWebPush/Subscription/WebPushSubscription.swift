import Crypto
import Foundation
import HeraldCore

/// A browser's push subscription: the push resource URL and the keys to encrypt for (W3C Push API `PushSubscription`).
///
/// Herald stores it as the subscriber's token in the canonical form
/// `{"endpoint":"…","keys":{"p256dh":"…","auth":"…"}}` (``canonicalJSON``); the endpoint is its identity.
public struct WebPushSubscription: Sendable {
    /// The longest endpoint accepted, in bytes; real services' URLs are a few hundred.
    public static let maximumEndpointLength = 2048

    /// The push resource URL (`https`).
    public let endpoint: String
    /// The user agent's ECDH public key (`keys.p256dh`): 65-byte uncompressed P-256 point, unpadded base64url.
    public let p256dh: String
    /// The 16-byte authentication secret (`keys.auth`), unpadded base64url.
    public let auth: String
    /// The user agent's public key, checked to be on P-256.
    public let userAgentPublicKey: P256.KeyAgreement.PublicKey
    /// The authentication secret's bytes.
    public let authSecret: [UInt8]

    /// Validates a subscription; `nil` when the endpoint is not an `https` URL with a host, `p256dh` does not decode
    /// to an uncompressed point on P-256, or `auth` does not decode to 16 bytes. Base64url padding is tolerated.
    public init?(endpoint: String, p256dh: String, auth: String) {
        guard Self.isPushEndpoint(endpoint),
            let point = Base64URL.decode(p256dh), point.count == 65, point[0] == 0x04,
            let key = try? P256.KeyAgreement.PublicKey(x963Representation: point),
            let secret = Base64URL.decode(auth), secret.count == 16
        else { return nil }
        self.endpoint = endpoint
        // Re-encoding drops padding and any non-canonical trailing bits, so equal keys are stored equally.
        self.p256dh = Base64URL.encode(point)
        self.auth = Base64URL.encode(secret)
        self.userAgentPublicKey = key
        self.authSecret = secret
    }

    /// The stored token: compact JSON, keys in the order `endpoint`, `keys.p256dh`, `keys.auth`.
    public var canonicalJSON: String {
        var json = JSONWriter(capacity: endpoint.utf8.count + 160)
        json.beginObject()
        json.key("endpoint")
        json.string(endpoint)
        json.key("keys")
        json.beginObject()
        json.key("p256dh")
        json.string(p256dh)
        json.key("auth")
        json.string(auth)
        json.endObject()
        json.endObject()
        return json.text
    }

    /// The endpoint's origin (`scheme://host[:port]`, RFC 6454): the VAPID `aud`.
    public var origin: String {
        // `isPushEndpoint` already accepted the URL, so the components are there.
        Self.origin(of: endpoint) ?? endpoint
    }

    /// The origin of an `https` URL, the default port left out; `nil` when it has no host.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            var host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = components.port, port != defaultPort {
            return "\(scheme)://\(host):\(port)"
        }
        return "\(scheme)://\(host)"
    }

    /// Whether `text` is an absolute `https` URL with a host, no credentials and no whitespace.
    static func isPushEndpoint(_ text: String) -> Bool {
        guard text.utf8.count <= maximumEndpointLength,
            !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
            let components = URLComponents(string: text),
            components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty,
            components.user == nil, components.password == nil
        else { return false }
        return true
    }
}

extension WebPushSubscription: Equatable {
    public static func == (lhs: WebPushSubscription, rhs: WebPushSubscription) -> Bool {
        lhs.endpoint == rhs.endpoint && lhs.p256dh == rhs.p256dh && lhs.auth == rhs.auth
    }
}
