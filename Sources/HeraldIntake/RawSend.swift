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
