extension WNSSimulator {
    /// One accepted notification, recorded when ``Configuration/recordPayloads`` is on.
    public struct Accepted: Sendable {
        /// The channel URI it was sent to.
        public let channel: String
        /// The `X-WNS-Type` (`wns/toast`, ...).
        public let type: String
        /// Every request header, in the order received (names as sent).
        public let headers: [(name: String, value: String)]
        /// The body as text.
        public let body: String
        /// The `X-WNS-Msg-ID` the simulator answered with.
        public let messageID: String

        /// The value of the first header called `name` (any case), if present.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }
}
