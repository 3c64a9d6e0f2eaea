extension MPNSSimulator {
    /// One accepted notification, recorded when ``Configuration/recordPayloads`` is on.
    public struct Accepted: Sendable {
        /// The channel URI it was sent to.
        public let channel: String
        /// `X-NotificationClass`.
        public let notificationClass: Int
        /// `X-WindowsPhone-Target`, absent for raw notifications.
        public let target: String?
        /// Every request header, in the order received (names as sent).
        public let headers: [(name: String, value: String)]
        /// The body as text.
        public let body: String

        /// The value of the first header called `name` (any case), if present.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }
}
