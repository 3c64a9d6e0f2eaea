import Crypto
import Foundation
import HeraldCore
import NIOCore

/// Signs webhook requests as the Standard Webhooks specification does: an HMAC-SHA256 of
/// `<webhook-id>.<webhook-timestamp>.<body>` per secret, each `v1,<base64>`, space-separated.
///
/// Several secrets sign at once so that a receiver can move to a new secret while Herald still
/// signs with the old one: it accepts a request if any signature verifies.
public struct WebhookSigner: Sendable {
    /// The secrets, each of which signs every request, in configuration order.
    let secrets: [WebhookSigningSecret]

    /// A signer with at least one secret.
    public init(secrets: [WebhookSigningSecret]) {
        precondition(!secrets.isEmpty, "a signer needs a secret")
        self.secrets = secrets
    }

    /// How many secrets sign each request.
    public var secretCount: Int { secrets.count }

    /// The `webhook-signature` value for `body` sent as message `id` at `timestamp` (Unix seconds).
    public func signature(id: String, timestamp: Int64, body: ByteBuffer) -> String {
        let signed = Array("\(id).\(timestamp).".utf8)
        return secrets.map { secret in
            var hmac = HMAC<SHA256>(key: secret.key)
            hmac.update(data: signed)
            body.withUnsafeReadableBytes { hmac.update(data: $0) }
            return "v1," + Data(hmac.finalize()).base64EncodedString()
        }.joined(separator: " ")
    }

    /// The `webhook-id` of a delivery: `msg_` and 32 hex digits of the SHA-256 of its publish id and
    /// recipient, so every attempt of one delivery carries the same id and no two deliveries share one.
    ///
    /// Derived rather than stored: the pipeline keeps the publish id with the content every retry
    /// copies, and the recipient with the delivery. A target without a publish id (a direct send)
    /// gets a random id.
    public static func messageID(for target: DeliveryTarget) -> String {
        guard let publishID = target.publishID else { return "msg_" + DeliveryContent.newPublishID() }
        let recipient = target.subscriberID.map { "subscriber:\($0.rawValue)" } ?? "token:\(target.token)"
        let digest = SHA256.hash(data: Array("\(publishID)/\(recipient)".utf8))
        return "msg_" + digest.prefix(16).map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }
}
