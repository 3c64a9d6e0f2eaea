import HeraldHTTP2
import NIOCore

/// A notification rendered for APNs: the JSON body and the headers that depend on it.
public struct APNsMessage: Sendable, Equatable {
    /// The JSON payload (`{"aps":{...}, <data keys>}`).
    public var body: ByteBuffer
    /// `apns-push-type`.
    public var pushType: APNsPushType
    /// `apns-priority`: 10 (now) or 5 (power-considerate).
    public var priority: Int
    /// `apns-expiration` (Unix seconds), when the publish set `ttl` or `expiration`.
    public var expiration: Int64?
    /// `apns-collapse-id`, from the publish's `collapseKey`.
    public var collapseID: String?
    /// `apns-topic` instead of the provider's (a prepared payload's own header).
    public var topic: String?
    /// `apns-id` instead of a generated one (a prepared payload's own header).
    public var requestID: String?
    /// The environment to send to instead of the provider's (a prepared payload's `herald-apns-environment`).
    public var environment: APNsEnvironment?
    /// The header fields above (with the provider's topic and token), built once per rendered message by the provider.
    var preparedHeaders: HTTP2PreparedHeaders?
    /// The `authorization` value in ``preparedHeaders``, if any.
    var preparedAuthorization: String?

    /// Creates a message.
    public init(body: ByteBuffer, pushType: APNsPushType, priority: Int, expiration: Int64? = nil, collapseID: String? = nil) {
        self.body = body
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
    }
}
