extension GCMLegacySimulator {
    /// One request answered `200`, recorded when ``Configuration/recordPayloads`` is on.
    public struct Accepted: Sendable {
        /// The registration ids, in order (`to` as a one-element list).
        public let registrationIDs: [String]
        /// The per-index `error` of the answer, `nil` where a `message_id` was returned.
        public let errors: [String?]
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
