import Logging

extension HMSSimulator {
    /// How an ``HMSSimulator`` behaves: the apps it knows, token lifetimes, Push Kit's limits and recording.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String = "127.0.0.1"
        /// The port to bind; 0 picks a free one (``HMSSimulator/start()`` returns it).
        public var port: Int = 0
        /// The apps it knows: app id (the OAuth client id) → app secret.
        public var credentials: [String: String]
        /// The CA whose server certificate the simulator presents. `nil` serves cleartext HTTP/1.1, which is not
        /// faithful and meant only for cheap benchmarks.
        public var certificateAuthority: SimulatorCertificateAuthority?
        /// Seconds an access token lives: the `expires_in` the token endpoint answers, and enforced on sends
        /// (`80200003` afterwards). Huawei's value, 3600, by default; tests lower it to watch tokens expire.
        public var accessTokenLifetime: Int = 3600
        /// The most tokens in one request (`80300010` above). Default 1000, as Push Kit.
        public var maximumTokensPerRequest: Int = 1000
        /// The largest `message` without its `token` list, in bytes (`80300008` above). Default 4096, as Push Kit.
        public var maximumMessageBytes: Int = 4096
        /// Tokens shorter than this are illegal. Real tokens are well over 100 characters; Huawei documents no
        /// minimum, so this is an assumption.
        public var minimumTokenLength: Int = 32
        /// Keep every accepted request's body and headers for ``HMSSimulator/accepted()``.
        public var recordPayloads: Bool = false
        /// Keep every delivered token for ``HMSSimulator/acceptedTokens()``; long benchmarks may turn this off to
        /// keep memory flat.
        public var recordTokens: Bool = true
        /// Called with every request that delivered to at least one token, after it is counted and outside the
        /// simulator's locks (`herald simulate --verbose` logs them); `nil`, the default, costs nothing.
        public var onAccepted: SimulatorDeliveryHandler?
        /// The seed of the generator behind ``HMSSimulator/Faults``, access tokens and request ids.
        public var seed: UInt64 = 0x48_4D_53
        /// Where the simulator logs: start and stop at `info`, refused requests at `debug`, answers at `trace`.
        public var logger: Logger = Logger(label: "herald.simulator.hms")

        /// A configuration knowing the app `clientID` with `clientSecret`, served over TLS with a certificate from
        /// `certificateAuthority` (or cleartext when `nil`).
        public init(clientID: String, clientSecret: String, certificateAuthority: SimulatorCertificateAuthority?) {
            self.credentials = [clientID: clientSecret]
            self.certificateAuthority = certificateAuthority
        }
    }
}
