extension FCMSimulator {
    /// One accepted send, recorded when ``Configuration/recordPayloads`` is on.
    public struct Accepted: Sendable {
        /// The project in the request path.
        public let projectID: String
        /// The registration token, when the message targets one.
        public let token: String?
        /// The topic or condition, when the message targets one.
        public let topic: String?
        /// The request body, as sent.
        public let body: String
        /// Every request header, pseudo-headers included, in the order received.
        public let headers: [(name: String, value: String)]
        /// The message name the simulator answered with (`projects/<id>/messages/<id>`).
        public let name: String
        /// Whether the request only asked for validation (`validate_only`).
        public let validateOnly: Bool

        /// The value of the first header called `name` (lowercase), if present.
        public func header(_ name: String) -> String? {
            self.headers.first { $0.name == name }?.value
        }
    }
}
