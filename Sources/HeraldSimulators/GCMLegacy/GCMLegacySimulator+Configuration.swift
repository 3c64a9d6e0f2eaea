import Logging

extension GCMLegacySimulator {
    /// How a ``GCMLegacySimulator`` behaves: the server keys it accepts, limits and recording.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String = "127.0.0.1"
        /// The port to bind; 0 picks a free one (``GCMLegacySimulator/start()`` returns it).
        public var port: Int = 0
        /// The server keys (`Authorization: key=…`) it accepts; others get `401`.
        public var apiKeys: Set<String>
        /// The CA whose server certificate the simulator presents. `nil` serves cleartext HTTP/1.1, which is not
        /// faithful and meant only for cheap benchmarks.
        public var certificateAuthority: SimulatorCertificateAuthority?
        /// The most registration ids in one request (`400` above). Default 1000, as GCM.
        public var maximumRegistrationIDs: Int = 1000
        /// The largest `data` (keys and values, in bytes) before every result is `MessageTooBig`. Default 4096.
        public var maximumDataBytes: Int = 4096
        /// Keep every accepted request's registration ids and body for ``GCMLegacySimulator/accepted()``.
        public var recordPayloads: Bool = true
        /// Called with every request that delivered to at least one registration id, after it is counted and
        /// outside the simulator's locks (`herald simulate --verbose` logs them); `nil`, the default, costs nothing.
        public var onAccepted: SimulatorDeliveryHandler?
        /// The seed of the generator behind faults and message ids, so runs are reproducible.
        public var seed: UInt64 = 0x47_43_4D
        /// Where the simulator logs: start and stop at `info`, rejected requests at `debug`.
        public var logger: Logger = Logger(label: "herald.simulator.gcm-legacy")

        /// A configuration accepting `apiKeys`, served over TLS with a certificate from `certificateAuthority`
        /// (cleartext when `nil`).
        public init(apiKeys: Set<String>, certificateAuthority: SimulatorCertificateAuthority?) {
            self.apiKeys = apiKeys
            self.certificateAuthority = certificateAuthority
        }
    }
}
