import Logging

extension WNSSimulator {
    /// How a ``WNSSimulator`` behaves: the app credentials it accepts, token lifetime, limits and recording.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String = "127.0.0.1"
        /// The port to bind; 0 picks a free one (``WNSSimulator/start()`` returns it).
        public var port: Int = 0
        /// The apps it knows: client id (package SID) → client secret. Channels belong to one of them.
        public var credentials: [String: String]
        /// The CA whose server certificate the simulator presents. `nil` serves cleartext HTTP/1.1, which is not
        /// faithful and meant only for cheap benchmarks.
        public var certificateAuthority: SimulatorCertificateAuthority?
        /// The `expires_in` (seconds) of the access tokens it issues; tokens are refused with `401` afterwards.
        /// Default 86400, as WNS.
        public var tokenLifetime: Int = 86400
        /// The largest notification body accepted (`413` above). Default 5000 bytes, as WNS.
        public var maximumBodyBytes: Int = 5000
        /// Keep every accepted notification's headers and body for ``WNSSimulator/accepted()``.
        public var recordPayloads: Bool = true
        /// Called with every accepted request, after it is counted and outside the simulator's locks
        /// (`herald simulate --verbose` logs them); `nil`, the default, costs nothing.
        public var onAccepted: SimulatorDeliveryHandler?
        /// The seed of the generator behind faults, channel ids and message ids, so runs are reproducible.
        public var seed: UInt64 = 0x57_4E_53
        /// Where the simulator logs: start and stop at `info`, rejected requests at `debug`.
        public var logger: Logger = Logger(label: "herald.simulator.wns")

        /// A configuration accepting the app `clientID` with `clientSecret`, served over TLS with a certificate from
        /// `certificateAuthority` (or cleartext when `nil`).
        public init(clientID: String, clientSecret: String, certificateAuthority: SimulatorCertificateAuthority?) {
            self.credentials = [clientID: clientSecret]
            self.certificateAuthority = certificateAuthority
        }
    }
}
