import NIOCore

/// A notification rendered for WNS: the body and the headers that depend on the publish.
public struct WNSMessage: Sendable, Equatable {
    /// The XML (toast, tile, badge) or raw body.
    public var body: ByteBuffer
    /// The notification type (`X-WNS-Type`, `Content-Type`).
    public var type: WNSNotificationType
    /// `X-WNS-TTL` in seconds, from the publish's `ttl` or `expiration`.
    public var timeToLive: Int?
    /// `X-WNS-Tag`, from the publish's `collapseKey`.
    public var tag: String?
    /// `X-WNS-Cache-Policy` (`cache`, `no-cache`), when the sender chose one (suj-pusher's `wnscache`).
    public var cachePolicy: String?
    /// `X-WNS-RequestForStatus` (`true`, `false`), when the sender chose one (suj-pusher's `wnsrequeststatus`).
    public var requestForStatus: String?

    /// Creates a message.
    public init(body: ByteBuffer, type: WNSNotificationType, timeToLive: Int? = nil, tag: String? = nil) {
        self.body = body
        self.type = type
        self.timeToLive = timeToLive
        self.tag = tag
    }
}
