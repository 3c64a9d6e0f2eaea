extension WebPushSimulator {
    /// One accepted push message, decrypted, recorded when ``Configuration/recordMessages`` is on.
    public struct Accepted: Sendable {
        /// The subscription's id.
        public let subscriptionID: String
        /// The subscription's endpoint.
        public let endpoint: String
        /// The decrypted plaintext (empty for a push without a body).
        public let plaintext: [UInt8]
        /// The size of the encrypted body as received.
        public let bodyLength: Int
        /// The `TTL` header as sent.
        public let ttl: Int
        /// The `Urgency` header, if any.
        public let urgency: String?
        /// The `Topic` header, if any.
        public let topic: String?
        /// The VAPID `sub` contact, if the request had VAPID.
        public let vapidSubject: String?
        /// The VAPID key (`k`, base64url), if the request had VAPID.
        public let vapidKey: String?
        /// The message id answered in `Location: /m/<id>`.
        public let messageID: String

        /// The plaintext as UTF-8 text.
        public var text: String { String(decoding: plaintext, as: UTF8.self) }
    }

    /// One refused push request: what a real service would have answered, and why.
    public struct Rejection: Sendable, Equatable {
        /// The status answered.
        public let status: Int
        /// Why, in words (the simulator's log line).
        public let reason: String
        /// The subscription id from the path.
        public let subscriptionID: String
    }
}
