/// A push service's broadcast channels (APNs, iOS 18): one push to a channel reaches every device
/// that follows it. A provider that has them exposes them through
/// ``PushProvider/broadcastChannels``; Herald's API and CLI manage them through this.
public protocol BroadcastChannels: Sendable {
    /// Creates a channel; returns its id.
    /// - Parameter storesLastMessage: whether the service keeps the channel's latest message for
    ///   devices that start following it later (`message-storage-policy` 1).
    func createChannel(storesLastMessage: Bool) async throws(BroadcastChannelError) -> BroadcastChannel
    /// Reads a channel.
    func channel(_ id: String) async throws(BroadcastChannelError) -> BroadcastChannel
    /// Every channel's id.
    func channelIDs() async throws(BroadcastChannelError) -> [String]
    /// Deletes a channel.
    func deleteChannel(_ id: String) async throws(BroadcastChannelError)
}

/// One broadcast channel.
public struct BroadcastChannel: Sendable, Equatable {
    /// Its id, as the service assigned it.
    public var id: String
    /// Whether the service keeps its latest message for late followers.
    public var storesLastMessage: Bool
    /// The push type it carries (`LiveActivity`).
    public var pushType: String

    /// Creates a channel value.
    public init(id: String, storesLastMessage: Bool, pushType: String) {
        self.id = id
        self.storesLastMessage = storesLastMessage
        self.pushType = pushType
    }
}

/// Why a channel operation failed: the service's answer (status and reason) or no answer at all.
public struct BroadcastChannelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The service's HTTP status; `nil` when it did not answer (connection, timeout, signing).
    public var status: Int?
    /// The service's reason (`BadChannelId`, …), or what went wrong.
    public var reason: String

    /// Creates an error.
    public init(status: Int?, reason: String) {
        self.status = status
        self.reason = reason
    }

    /// Whether the channel does not exist (the service's 404 or `BadChannelId`).
    public var isUnknownChannel: Bool { status == 404 || reason == "BadChannelId" || reason == "ChannelNotRegistered" }

    public var description: String { status.map { "\($0) \(reason)" } ?? reason }
}
