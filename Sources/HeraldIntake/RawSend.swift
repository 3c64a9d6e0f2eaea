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

    /// Creates a raw send.
    public init(proto: String, tokens: [String], payload: PreparedPayload, origin: DeliveryOrigin) {
        self.proto = proto
        self.tokens = tokens
        self.payload = payload
        self.origin = origin
    }
}
