/// A provider whose subscribers' browsers need its VAPID public key before they can subscribe
/// (Web Push), so the HTTP front can serve it without knowing the kind.
public protocol WebPushApplicationServer: Sendable {
    /// The provider's name.
    var name: String { get }
    /// The VAPID public key: the uncompressed P-256 point, base64url.
    var vapidPublicKey: String { get }
}
