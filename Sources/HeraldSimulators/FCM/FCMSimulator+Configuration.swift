import Logging
import NIOCore

extension FCMSimulator {
    /// How an ``FCMSimulator`` behaves: the accounts it trusts, token lifetimes, stream limits and recording.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String = "127.0.0.1"
        /// The port to bind; 0 picks a free one (``FCMSimulator/start()`` returns it).
        public var port: Int = 0
        /// The service accounts whose assertions the token endpoint accepts; each may send to its own project.
        public var serviceAccounts: [FCMTestServiceAccount]
        /// The CA whose server certificate the simulator presents (HTTP/2 over TLS with ALPN `h2`). `nil` serves
        /// cleartext HTTP/2 with prior knowledge, which is not faithful and meant only for cheap benchmarks.
        public var certificateAuthority: SimulatorCertificateAuthority?
        /// Seconds an access token lives: the `expires_in` the token endpoint answers, and enforced on sends.
        /// Google's value, 3599, by default; tests lower it to watch tokens expire.
        public var accessTokenLifetime: Int = 3599
        /// How many seconds an assertion's `iat` may lie in the future (clock differences between machines).
        public var assertionClockSkew: Int = 60
        /// `SETTINGS_MAX_CONCURRENT_STREAMS`: FCM has been seen to allow 100 streams per connection.
        public var maxConcurrentStreams: Int = 100
        /// Registration tokens shorter than this are malformed (`400 INVALID_ARGUMENT`). Real tokens are well
        /// over 100 characters of `[A-Za-z0-9_:-]`; Google documents no minimum, so this is an assumption.
        public var minimumRegistrationTokenLength: Int = 32
        /// Keep every accepted request's body for ``FCMSimulator/accepted()``.
        public var recordPayloads: Bool = false
        /// Called with every accepted request, after it is counted and outside the simulator's locks
        /// (`herald simulate --verbose` logs them); `nil`, the default, costs nothing.
        public var onAccepted: SimulatorDeliveryHandler?
        /// Keep every accepted request's registration token for ``FCMSimulator/acceptedTokens()``; long
        /// benchmarks may turn this off to keep memory flat.
        public var recordTokens: Bool = true
        /// How long, in milliseconds, a connection sent a graceful `GOAWAY` may finish its streams before it is
        /// closed anyway.
        public var goAwayGracePeriodMilliseconds: Int = 2000
        /// The seed of the generator behind ``FCMSimulator/Faults``, access tokens and message ids.
        public var seed: UInt64 = 0x46_43_4D_53_69_6D
        /// The event loops to serve on; `nil` uses NIO's shared singleton group.
        public var eventLoopGroup: (any EventLoopGroup)?
        /// Where the simulator logs: start and stop at `info`, connection trouble at `debug`, requests at `trace`.
        public var logger: Logger = Logger(label: "herald.simulator.fcm")

        /// A configuration trusting `serviceAccounts`, served over TLS with a certificate from
        /// `certificateAuthority` (or cleartext HTTP/2 when `nil`).
        public init(serviceAccounts: [FCMTestServiceAccount], certificateAuthority: SimulatorCertificateAuthority?) {
            self.serviceAccounts = serviceAccounts
            self.certificateAuthority = certificateAuthority
        }
    }
}
