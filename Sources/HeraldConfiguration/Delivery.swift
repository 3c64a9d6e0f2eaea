import HeraldCore

extension HeraldConfiguration {
    /// The delivery pipeline's limits (`delivery`).
    public struct Delivery: Sendable, Equatable {
        /// Consecutive permanent failures before a subscriber is unregistered (`max_failures`); default 5, 0 disables.
        public var maxFailures: Int
        /// Attempts per delivery, the first included, before a transient failure is given up (`max_attempts`); default 5, at least 1.
        public var maxAttempts: Int
        /// The delay before the first retry (`retry_delay`, seconds); default 1 s.
        public var retryDelay: Duration
        /// The cap on the growing retry delay (`max_retry_delay`, seconds); default 300 s, at least `retryDelay`.
        public var maxRetryDelay: Duration
        /// Subscribers read per fan-out page (`batch_size`); default 500, at least 1.
        public var batchSize: Int
        /// Deliveries handed to providers and not yet checkpointed, per job (`in_flight`); default 2000, at least 1.
        ///
        /// This bounds how many notifications may be sent twice after a crash.
        public var inFlight: Int
        /// Publish jobs processed at once by one node (`concurrent_jobs`); default 4, at least 1.
        public var concurrentJobs: Int
        /// How long a node holds a job before another may take it over (`lease_duration`, seconds); default 30 s, more than 0.
        public var leaseDuration: Duration
        /// Accepted work not yet done (publish jobs plus pending retries) beyond which publishing answers
        /// 503 with `Retry-After` instead of accepting what cannot be served (`max_backlog`); default 100000, 0 = no bound.
        public var maxBacklog: Int
        /// How long after publishing a delivery may still be retried (`max_retry_age`, seconds); default 86400 (1 day), 0 = no bound.
        public var maxRetryAge: Duration?
        /// How long in-flight deliveries may take to finish after SIGTERM (`shutdown_grace_period`, seconds); default 10 s.
        ///
        /// What is still in flight then is abandoned and resumed from the last checkpoint on the next start.
        public var shutdownGracePeriod: Duration
        /// How long dead letters are kept (`dead_letter_retention`, seconds); default 604800 (7 days), 0 = forever.
        public var deadLetterRetention: Duration?
        /// How long feedback entries are kept (`feedback_retention`, seconds); default 2592000 (30 days), 0 = forever.
        public var feedbackRetention: Duration?
        /// How long answers are gathered before they are recorded in one transaction (`commit_interval`,
        /// seconds); default 0.02 (20 ms), at most 1 s. A `kill -9` sends again at most what was
        /// unanswered then plus the answers of this last interval.
        public var commitInterval: Duration = .milliseconds(20)
        /// Consecutive connection failures or expired deadlines that open a destination's circuit
        /// breaker (`breaker_threshold`); default 5, 0 = never.
        public var breakerThreshold = 5
        /// How long an open breaker first defers deliveries before one probe (`breaker_open_duration`,
        /// seconds); default 2 s, doubling while probes fail up to `breaker_max_open_duration` (default 60 s).
        public var breakerOpenDuration: Duration = .seconds(2)
        /// The longest pause between two probes of an open breaker (`breaker_max_open_duration`, seconds); default 60 s.
        public var breakerMaxOpenDuration: Duration = .seconds(60)
        /// How long the receipt of a finished publish is kept for `GET /publishes/<id>` (`receipt_retention`,
        /// seconds); default 604800 (7 days), 0 = forever.
        public var receiptRetention: Duration? = .seconds(604_800)
        /// How long a publish's `Idempotency-Key` makes a repeat answer as the first did instead of
        /// publishing again (`idempotency_window`, seconds); default 86400 (24 hours), at least 1 s.
        public var idempotencyWindow: Duration = .seconds(86_400)
        /// How far ahead a publish may be scheduled with `at` or `delay` (`max_schedule_ahead`, seconds);
        /// default 2592000 (30 days), at least 1 s.
        public var maxScheduleAhead: Duration = .seconds(2_592_000)

        /// Creates a delivery section; every argument defaults to the documented default.
        public init(
            maxFailures: Int = 5,
            maxAttempts: Int = 5,
            retryDelay: Duration = .seconds(1),
            maxRetryDelay: Duration = .seconds(300),
            batchSize: Int = 500,
            inFlight: Int = 2000,
            concurrentJobs: Int = 4,
            leaseDuration: Duration = .seconds(30),
            maxBacklog: Int = 100_000,
            maxRetryAge: Duration? = .seconds(86_400),
            shutdownGracePeriod: Duration = .seconds(10),
            deadLetterRetention: Duration? = .seconds(604_800),
            feedbackRetention: Duration? = .seconds(2_592_000)
        ) {
            self.maxFailures = maxFailures
            self.maxAttempts = maxAttempts
            self.retryDelay = retryDelay
            self.maxRetryDelay = maxRetryDelay
            self.batchSize = batchSize
            self.inFlight = inFlight
            self.concurrentJobs = concurrentJobs
            self.leaseDuration = leaseDuration
            self.maxBacklog = maxBacklog
            self.maxRetryAge = maxRetryAge
            self.shutdownGracePeriod = shutdownGracePeriod
            self.deadLetterRetention = deadLetterRetention
            self.feedbackRetention = feedbackRetention
        }

        /// Reads `delivery`, or the defaults when it is absent.
        init(section: ConfigSection?) throws(ConfigurationError) {
            self.init()
            guard let section else { return }
            try section.rejectUnknownKeys(schema: ConfigurationSchema.delivery)
            maxFailures = try section.int("max_failures", atLeast: 0) ?? maxFailures
            maxAttempts = try section.int("max_attempts", atLeast: 1) ?? maxAttempts
            retryDelay = try section.duration("retry_delay") ?? retryDelay
            maxRetryDelay = try section.duration("max_retry_delay") ?? maxRetryDelay
            batchSize = try section.int("batch_size", atLeast: 1) ?? batchSize
            inFlight = try section.int("in_flight", atLeast: 1) ?? inFlight
            concurrentJobs = try section.int("concurrent_jobs", atLeast: 1) ?? concurrentJobs
            // A zero lease would let every node take over every job at once.
            leaseDuration = try section.duration("lease_duration", minimum: .milliseconds(1)) ?? leaseDuration
            maxBacklog = try section.int("max_backlog", atLeast: 0) ?? maxBacklog
            // 0 means "no bound" for the ages, as it does for `max_backlog`.
            func age(_ key: String, _ current: Duration?) throws(ConfigurationError) -> Duration? {
                guard let value = try section.duration(key) else { return current }
                return value == .zero ? nil : value
            }
            maxRetryAge = try age("max_retry_age", maxRetryAge)
            shutdownGracePeriod = try section.duration("shutdown_grace_period") ?? shutdownGracePeriod
            deadLetterRetention = try age("dead_letter_retention", deadLetterRetention)
            feedbackRetention = try age("feedback_retention", feedbackRetention)
            commitInterval = try section.duration("commit_interval", minimum: .milliseconds(1)) ?? commitInterval
            if commitInterval > .seconds(1) {
                throw ConfigurationError(key: section.keyPath("commit_interval"), "commit_interval must be at most 1 second")
            }
            receiptRetention = try age("receipt_retention", receiptRetention)
            idempotencyWindow = try section.duration("idempotency_window", minimum: .seconds(1)) ?? idempotencyWindow
            maxScheduleAhead = try section.duration("max_schedule_ahead", minimum: .seconds(1)) ?? maxScheduleAhead
            breakerThreshold = try section.int("breaker_threshold", atLeast: 0) ?? breakerThreshold
            breakerOpenDuration = try section.duration("breaker_open_duration", minimum: .milliseconds(1)) ?? breakerOpenDuration
            breakerMaxOpenDuration = try section.duration("breaker_max_open_duration", minimum: .milliseconds(1)) ?? breakerMaxOpenDuration
            guard breakerMaxOpenDuration >= breakerOpenDuration else {
                throw ConfigurationError(key: section.keyPath("breaker_max_open_duration"), "breaker_max_open_duration must not be shorter than breaker_open_duration")
            }
            guard maxRetryDelay >= retryDelay else {
                let key = section.contains("max_retry_delay") ? "max_retry_delay" : "retry_delay"
                throw ConfigurationError(key: section.keyPath(key), "max_retry_delay must not be shorter than retry_delay")
            }
        }
    }
}
