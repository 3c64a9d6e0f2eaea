import Crypto
import HeraldCore
import HeraldStore

extension IdempotencyClaim {
    /// Longest key accepted: Stripe's limit, far above a UUID.
    static let maxKeyLength = 255

    /// The claim a publish makes with `key`: its fingerprint digests the event, the origin and
    /// the payload as decoded (so a repeat sent as a form or as JSON with the same fields matches).
    /// - Throws: ``IntakeError/Code/invalidRequest`` for an empty or overlong key, or one with other
    ///   than printable ASCII.
    init(key: String, event: EventName, payload: BodyValue, origin: DeliveryOrigin, now: Int64, window: Duration) throws(IntakeError) {
        // Printable ASCII without spaces, as Stripe's and the IETF draft's keys (UUIDs, tokens) are.
        guard (1...Self.maxKeyLength).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidRequest("Invalid Idempotency-Key: 1 to \(Self.maxKeyLength) printable ASCII characters, no spaces")
        }
        var hash = SHA256()
        for part in [origin.rawValue, event.rawValue, payload.jsonText] {
            hash.update(data: Array(part.utf8))
            hash.update(data: [0])
        }
        self.init(key: key, fingerprint: Base64URL.encode(hash.finalize()), since: now - window.components.seconds)
    }
}
