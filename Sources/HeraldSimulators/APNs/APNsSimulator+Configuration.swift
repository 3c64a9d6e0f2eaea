import Crypto
import Logging
import NIOCore

extension APNsSimulator {
    /// How an ``APNsSimulator`` behaves: identity, credentials it accepts, stream limits and recording.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String = "127.0.0.1"
        /// The port to bind; 0 picks a free one (``APNsSimulator/start()`` returns it).
        public var port: Int = 0
        /// Imitate the development environment: successful answers carry `apns-unique-id`.
        public var sandbox: Bool = false
        /// The team whose provider tokens are accepted (the JWT `iss`).
        public var teamID: String
        /// The team's signing keys by key id (the JWT `kid`), for token authentication.
        public var signingKeys: [String: P256.Signing.PublicKey]
        /// The bundle ids the team may push to; the topics of the other push types are derived from them with the
        /// suffixes of providers.md §1.2 (`<bundle>.voip`, `<bundle>.push-type.liveactivity`, …). Empty accepts any
        /// topic.
        public var topics: Set<String>
        /// The CA whose server certificate the simulator presents (HTTP/2 over TLS with ALPN `h2`). `nil` serves
        /// cleartext HTTP/2 with prior knowledge, which is not faithful and meant only for cheap benchmarks.
        public var certificateAuthority: SimulatorCertificateAuthority?
        /// Ask TLS clients for a certificate from ``certificateAuthority``: a connection presenting one is
        /// certificate-authenticated, with the topic taken from the certificate's subject UID. Connections without a
        /// certificate may still use provider tokens.
        public var clientCertificateAuthentication: Bool = false
        /// `SETTINGS_MAX_CONCURRENT_STREAMS` advertised to a token-authenticated connection until its first request
        /// with a valid provider token.
        public var initialMaxConcurrentStreams: Int = 1
        /// `SETTINGS_MAX_CONCURRENT_STREAMS` after the first valid provider token, and from the start on
        /// certificate-authenticated connections.
        public var authenticatedMaxConcurrentStreams: Int = 1000
        /// Keep every accepted request's headers and body for ``APNsSimulator/accepted()``.
        public var recordPayloads: Bool = false
        /// Keep every accepted request's device token for ``APNsSimulator/acceptedTokens()``; long benchmarks may
        /// turn this off to keep memory flat.
        public var recordTokens: Bool = true
        /// Called with every accepted request, after it is counted and outside the simulator's locks
        /// (`herald simulate --verbose` logs them); `nil`, the default, costs nothing.
        public var onAccepted: SimulatorDeliveryHandler?
        /// The reason for a `background` push with priority 10. Apple only says it is "an error" (§1.9 step 7).
        public var backgroundPriority10Reason: String = "BadPriority"
        /// Provider tokens whose `iat` is older than this many seconds get `403 ExpiredProviderToken`.
        public var providerTokenMaxAge: Int = 3600
        /// How many seconds an `iat` may lie in the future before it is `403 InvalidProviderToken`; absorbs a client
        /// that rounds the current time up.
        public var providerTokenClockSkew: Int = 1
        /// More distinct valid provider tokens than this from the team within
        /// ``providerTokenUpdateWindow`` seconds get `429 TooManyProviderTokenUpdates`; `nil` disables the check.
        public var maxProviderTokensPerWindow: Int? = 2
        /// The window, in seconds, of ``maxProviderTokensPerWindow`` (Apple's 20 minutes).
        public var providerTokenUpdateWindow: Int = 1200
        /// Reject bodies that are not a syntactically valid JSON object (UTF-8) with ``invalidPayloadReason``.
        public var validatesPayloadJSON: Bool = true
        /// The `400` reason for a body that is not a JSON object. Apple documents none; this is an assumption.
        public var invalidPayloadReason: String = "BadPayload"
        /// Serve the broadcast push API of iOS 18 on this same listener: channel management
        /// (`/1/apps/<bundle id>/channels` and `/all-channels`, which Apple serves on `api-manage-broadcast…` ports
        /// 2195/2196) and broadcast sends (`POST /4/broadcasts/apps/<bundle id>`). Off, the default, the device API
        /// judges those paths like any other unknown one (`404 BadPath` once the earlier steps of §1.9 pass).
        public var broadcast: Bool = false
        /// The bundle ids with Broadcast Capability enabled; channel and broadcast requests for the others of
        /// ``topics`` get `400 FeatureNotEnabled`. `nil`, the default, enables every bundle id.
        public var broadcastTopics: Set<String>?
        /// The most channels one bundle id may have (Apple's 10,000 per app and environment); creating one more gets
        /// `400 CannotCreateChannelConfig`.
        public var maxChannelsPerBundle: Int = 10_000
        /// The `400` reason for a channel creation whose `message-storage-policy` is missing or not `0` or `1`. Apple
        /// documents none; this is an assumption.
        public var invalidMessageStoragePolicyReason: String = "BadRequestParams"
        /// How long, in milliseconds, a connection that was sent a graceful `GOAWAY` may finish its in-flight
        /// streams before it is closed anyway.
        public var goAwayGracePeriodMilliseconds: Int = 2000
        /// The seed of the generator behind ``APNsSimulator/Faults`` and generated ids, so runs are reproducible.
        public var seed: UInt64 = 0x48_65_72_61_6C_64
        /// The event loops to serve on; `nil` uses NIO's shared singleton group.
        public var eventLoopGroup: (any EventLoopGroup)?
        /// Where the simulator logs: start and stop at `info`, connection trouble at `debug`, requests at `trace`.
        public var logger: Logger = Logger(label: "herald.simulator.apns")

        /// A configuration accepting tokens of `teamID` signed by `signingKeys` for `topics`, served over TLS with a
        /// certificate from `certificateAuthority` (or cleartext HTTP/2 when `nil`).
        public init(
            teamID: String,
            signingKeys: [String: P256.Signing.PublicKey],
            topics: Set<String>,
            certificateAuthority: SimulatorCertificateAuthority?
        ) {
            self.teamID = teamID
            self.signingKeys = signingKeys
            self.topics = topics
            self.certificateAuthority = certificateAuthority
        }
    }
}
