import HeraldConfiguration
import HeraldCore
import HeraldStore
import Logging
import Metrics

/// What a front-end is built from.
public struct FrontEndContext: Sendable {
    /// The whole configuration; a front-end reads its own section.
    public var configuration: HeraldConfiguration
    /// Where it hands what it receives: the only way it changes the store.
    public var intake: Intake
    /// The feedback log, for front-ends that serve their clients' own feedback (apns-ms's
    /// expired devices, push2mob's `feedback`).
    public var feedback: any FeedbackLog & FrontEndFeedback
    /// The store's named leases, for front-ends of which one node must do a thing (suj-pusher).
    public var leases: any FrontEndLeases
    /// Its logger (children carry its name).
    public var logger: Logger
    /// The factory its instruments are made with (the server's Prometheus registry).
    public var metricsFactory: any MetricsFactory
    /// The node's per-client limits (`server.rate_limit`), shared with the HTTP front so that a client
    /// has one bucket per realm whichever door it uses.
    public var rateLimiter: RateLimiter
    /// Reports a socket the front-end bound, by a name of its choosing (`udp`, `apns_ms`, ...) and
    /// its port, so callers that asked for port 0 learn where it listens.
    public var bound: @Sendable (_ listener: String, _ port: Int) -> Void

    /// Creates a context; without a `rateLimiter` nothing is limited.
    public init(
        configuration: HeraldConfiguration, intake: Intake, feedback: any FeedbackLog & FrontEndFeedback, leases: any FrontEndLeases,
        logger: Logger, metricsFactory: any MetricsFactory,
        rateLimiter: RateLimiter = .unlimited,
        bound: @escaping @Sendable (_ listener: String, _ port: Int) -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.intake = intake
        self.feedback = feedback
        self.leases = leases
        self.logger = logger
        self.metricsFactory = metricsFactory
        self.rateLimiter = rateLimiter
        self.bound = bound
    }
}
