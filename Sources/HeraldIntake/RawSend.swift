import HeraldCore

/// A prepared payload for raw tokens of one provider: what the compat front-ends accept.
///
/// The tokens need not be registered. Each becomes one durable delivery in the store's delivery
/// queue, claimed, sent, retried and dead-lettered like every other delivery.
public struct RawSend: Sendable, Equatable {
    /// The provider name (`apns`, `fcm`, ...).
    public var proto: String
    /// The tokens, as the front-end received them; each is validated by the provider.
    public var tokens: [String]
    /// What is sent to every token.
    public var payload: PreparedPayload
    /// The front-end it comes through.
    public var origin: DeliveryOrigin
    /// Most attempts per token, when the sender wants fewer than `delivery.max_attempts` (1: no
    /// retry); `nil`: the configured maximum.
    public var maxAttempts: Int?
    /// What a token the provider cannot take does to the send.
    public var invalidTokens: InvalidTokens = .refuseSend
    /// A key under which the send is queued at most once within a window (a sender's repeat of a
    /// request that timed out queues nothing); `nil`: every send is queued.
    public var once: Once?

    /// A key under which a send is queued at most once while it lives.
    public struct Once: Sendable, Equatable {
        /// The key: unique to what must not be sent twice, at most 255 bytes (a digest).
        public var key: String
        /// How long a send under it is remembered.
        public var window: Duration

        /// Creates a key.
        public init(key: String, window: Duration) {
            self.key = key
            self.window = window
        }
    }

    /// What a token the provider cannot take does to the send.
    public enum InvalidTokens: Sendable, Equatable {
        /// The whole send is refused (``IntakeError/Code/invalidToken``), so its sender learns at once.
        case refuseSend
        /// The token is left out (and logged) and the others are sent, as gateways that validate
        /// nothing up front did (gorush: the push service would have refused it).
        case leaveOut
    }

    /// Creates a raw send.
    public init(proto: String, tokens: [String], payload: PreparedPayload, origin: DeliveryOrigin, maxAttempts: Int? = nil) {
        self.maxAttempts = maxAttempts
        self.proto = proto
        self.tokens = tokens
        self.payload = payload
        self.origin = origin
    }
}
