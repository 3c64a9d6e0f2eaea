import NIOCore

/// A notification rendered for MPNS: the body and its type (which sets the headers).
public struct MPNSMessage: Sendable, Equatable {
    /// The XML (toast, tile) or raw body.
    public var body: ByteBuffer
    /// The notification type (`X-NotificationClass`, `X-WindowsPhone-Target`).
    public var type: MPNSNotificationType

    /// Creates a message.
    public init(body: ByteBuffer, type: MPNSNotificationType) {
        self.body = body
        self.type = type
    }
}
