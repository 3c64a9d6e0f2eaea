extension APNsSimulator {
    /// Whether APNs keeps a broadcast for subscribers that are offline: a channel's `message-storage-policy`, fixed
    /// when the channel is created.
    public enum MessageStoragePolicy: Int, Sendable, Hashable, CaseIterable {
        /// `0`, No Message Stored: broadcasts on the channel must carry `apns-expiration: 0`.
        case noMessageStored = 0
        /// `1`, Most Recent Message Stored (for at most 8 hours).
        case mostRecentMessageStored = 1
    }

    /// A broadcast channel the simulator holds (see ``Configuration/broadcast``).
    public struct Channel: Sendable, Hashable {
        /// The channel id: base64, random, as APNs hands it out in `apns-channel-id`.
        public let id: String
        /// The bundle id the channel belongs to.
        public let bundleID: String
        /// The storage policy it was created with.
        public let messageStoragePolicy: MessageStoragePolicy
    }
}
