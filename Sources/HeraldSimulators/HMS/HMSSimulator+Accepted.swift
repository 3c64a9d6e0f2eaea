extension HMSSimulator {
    /// One accepted request (`80000000` or `80100000`), recorded when ``Configuration/recordPayloads`` is on.
    public struct Accepted: Sendable {
        /// The app id in the request path.
        public let appID: String
        /// The tokens of the request, in order (empty for a topic or condition).
        public let tokens: [String]
        /// The tokens refused as illegal.
        public let illegalTokens: [String]
        /// The topic or condition, when the message targets one.
        public let target: String?
        /// The code answered: `80000000`, or `80100000` for a partial success.
        public let code: String
        /// The `requestId` answered.
        public let requestID: String
        /// Whether the request only asked for validation (`validate_only`).
        public let validateOnly: Bool
        /// The request body, as sent.
        public let body: String
        /// Every request header, in the order received (names as sent).
        public let headers: [(name: String, value: String)]

        /// The value of the first header called `name` (any case), if present.
        public func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }
}
