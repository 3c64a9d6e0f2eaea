extension WebPushSimulator {
    /// A subscription the simulator issued, as a browser's `PushManager.subscribe()` returns it.
    public struct Subscription: Sendable, Hashable {
        /// The simulator's id for it (the last path segment of ``endpoint``).
        public let id: String
        /// The push resource URL (`https://127.0.0.1:<port>/push/<id>`).
        public let endpoint: String
        /// `keys.p256dh`: the user agent's public key, unpadded base64url.
        public let p256dh: String
        /// `keys.auth`: the authentication secret, unpadded base64url.
        public let auth: String

        /// The `PushSubscription.toJSON()` text a browser hands the page:
        /// `{"endpoint":…,"expirationTime":null,"keys":{"p256dh":…,"auth":…}}`.
        public var json: String {
            // Every field is an https URL of the simulator or base64url, none of which needs JSON escaping.
            #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#
        }
    }
}
