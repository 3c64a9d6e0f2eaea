extension APNsSimulator {
    /// One accepted broadcast (`POST /4/broadcasts/apps/<bundle id>`), recorded when ``Configuration/recordPayloads``
    /// is on.
    public struct AcceptedBroadcast: Sendable {
        /// The bundle id from `:path`.
        public let bundleID: String
        /// The channel it was published on (`apns-channel-id`).
        public let channelID: String
        /// Every request header, pseudo-headers included, in the order received.
        public let headers: [(name: String, value: String)]
        /// The body as text.
        public let body: String
        /// The `apns-request-id` the simulator answered with.
        public let requestID: String
        /// The `apns-unique-id` the simulator answered with.
        public let uniqueID: String

        /// The value of the first header called `name` (lowercase), if present.
        public func header(_ name: String) -> String? {
            self.headers.first { $0.name == name }?.value
        }
    }
}
