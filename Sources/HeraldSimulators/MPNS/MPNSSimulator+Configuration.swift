import Logging

extension MPNSSimulator {
    /// How an ``MPNSSimulator`` behaves: limits and recording.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String = "127.0.0.1"
        /// The port to bind; 0 picks a free one (``MPNSSimulator/start()`` returns it).
        public var port: Int = 0
        /// The CA whose server certificate the simulator presents. `nil` serves cleartext HTTP/1.1, as
        /// unauthenticated MPNS web services did.
        public var certificateAuthority: SimulatorCertificateAuthority?
        /// The largest toast or tile body accepted (`400` above). Default 3072 bytes, as MPNS.
        public var maximumXMLBytes: Int = 3072
        /// The largest raw body accepted (`400` above). Default 1024 bytes, as MPNS.
        public var maximumRawBytes: Int = 1024
        /// Keep every accepted notification's headers and body for ``MPNSSimulator/accepted()``.
        public var recordPayloads: Bool = true
        /// Called with every accepted request, after it is counted and outside the simulator's locks
        /// (`herald simulate --verbose` logs them); `nil`, the default, costs nothing.
        public var onAccepted: SimulatorDeliveryHandler?
        /// The seed of the generator behind faults and channel ids, so runs are reproducible.
        public var seed: UInt64 = 0x4D_50_4E_53
        /// Where the simulator logs: start and stop at `info`, rejected requests at `debug`.
        public var logger: Logger = Logger(label: "herald.simulator.mpns")

        /// A configuration served over TLS with a certificate from `certificateAuthority` (cleartext when `nil`).
        public init(certificateAuthority: SimulatorCertificateAuthority?) {
            self.certificateAuthority = certificateAuthority
        }
    }
}
