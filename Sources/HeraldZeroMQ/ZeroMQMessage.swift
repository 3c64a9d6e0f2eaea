/// One single-frame message received on a socket.
public struct ZeroMQMessage: Sendable, Equatable {
    /// Its bytes.
    public var bytes: [UInt8]
    /// The sender's IP address (libzmq's `Peer-Address` property), when the transport has one (TCP).
    public var peerAddress: String?
    /// Whether more frames followed it (a multipart message); they were read and dropped.
    public var wasMultipart: Bool

    /// Creates a message.
    public init(bytes: [UInt8], peerAddress: String? = nil, wasMultipart: Bool = false) {
        self.bytes = bytes
        self.peerAddress = peerAddress
        self.wasMultipart = wasMultipart
    }
}
