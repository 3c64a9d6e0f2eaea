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

    /// Creates a raw send.
    public init(proto: String, tokens: [String], payload: PreparedPayload, origin: DeliveryOrigin, maxAttempts: Int? = nil) {
        self.maxAttempts = maxAttempts
        self.proto = proto
        self.tokens = tokens
        self.payload = payload
        self.origin = origin
    }
}
