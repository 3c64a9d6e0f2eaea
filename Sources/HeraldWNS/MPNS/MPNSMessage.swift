import NIOCore

/// A notification rendered for MPNS: the body and its type (which sets the headers).
public struct MPNSMessage: Sendable, Equatable {
    /// The XML (toast, tile) or raw body.
    public var body: ByteBuffer
    /// The notification type (`X-NotificationClass`, `X-WindowsPhone-Target`).
    public var type: MPNSNotificationType

    /// A prepared payload's MPNS headers (`X-NotificationClass`, `X-WindowsPhone-Target`,
    /// `X-MessageID`), sent as given instead of the ones `type` implies; `nil` for a rendered event.
    public var preparedHeaders: [String: String]?

    /// Creates a message.
    public init(body: ByteBuffer, type: MPNSNotificationType, preparedHeaders: [String: String]? = nil) {
        self.body = body
        self.type = type
        self.preparedHeaders = preparedHeaders
    }
}
