import Logging

extension WebPushSimulator {
    /// How a ``WebPushSimulator`` behaves: address, TLS identity, which answers it imitates, and recording.
    public struct Configuration: Sendable {
        /// The address to bind, and the host of the endpoints it issues; loopback by default.
        public var host: String = "127.0.0.1"
        /// The port to bind; 0 picks a free one (``WebPushSimulator/start()`` returns it).
        public var port: Int = 0
        /// The CA whose server certificate the simulator presents (HTTPS, HTTP/1.1).
        public var certificateAuthority: SimulatorCertificateAuthority
        /// Refuse requests without VAPID (`401`), as Apple's service does. Subscriptions made with an
        /// `applicationServerKey` always require it (RFC 8292 §4). Default `true`.
        public var requiresVAPID: Bool = true
        /// The status for an expired or unsubscribed subscription: `410` (FCM, Mozilla, Apple) or `404` (RFC 8030
        /// §7.3's wording). Default 410.
        public var expiredStatus: Int = 410
        /// The largest body accepted; larger ones get `413`. Default 4096, the least RFC 8030 allows.
        public var maximumBodyLength: Int = 4096
        /// When set, a larger `TTL` is shortened to this, and the answer carries the `TTL` it used (RFC 8030 §5.2).
        public var maximumTTL: Int?
        /// Seconds of clock difference tolerated on the VAPID `exp`. Default 60.
        public var clockSkew: Int = 60
        /// Keep every accepted message (decrypted) for ``WebPushSimulator/accepted()``. Default `true`.
        public var recordMessages: Bool = true
        /// Called with every accepted request, after it is counted and outside the simulator's locks
        /// (`herald simulate --verbose` logs them); `nil`, the default, costs nothing.
        public var onAccepted: SimulatorDeliveryHandler?
        /// The seed of the generator behind ``WebPushSimulator/Faults``, so runs are reproducible.
        public var seed: UInt64 = 0x57_65_62_50_75_73_68
        /// Where the simulator logs: start and stop at `info`, rejections at `debug`.
        public var logger: Logger = Logger(label: "herald.simulator.webpush")

        /// A configuration serving HTTPS with a certificate from `certificateAuthority`.
        public init(certificateAuthority: SimulatorCertificateAuthority) {
            self.certificateAuthority = certificateAuthority
        }
    }
}
