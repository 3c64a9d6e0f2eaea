extension APNsSimulator {
    /// One accepted notification, recorded when ``Configuration/recordPayloads`` is on.
    public struct Accepted: Sendable {
        /// The device token from `:path`, as sent.
        public let token: String
        /// Every request header, pseudo-headers included, in the order received.
        public let headers: [(name: String, value: String)]
        /// The body as text.
        public let body: String
        /// The `apns-id` the simulator answered with.
        public let apnsID: String

        /// The value of the first header called `name` (lowercase), if present.
        public func header(_ name: String) -> String? {
            self.headers.first { $0.name == name }?.value
        }
    }
}
