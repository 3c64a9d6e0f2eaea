import HeraldCore

extension HeraldConfiguration {
    /// One realm's token bucket per client (`server.rate_limit.<realm>`): `burst` requests at once,
    /// then `rate` requests per second.
    public struct RateLimit: Sendable, Equatable {
        /// Tokens added per second (`rate`, required, > 0; fractional allowed: `0.5` is one request every two seconds).
        public var rate: Double
        /// The bucket's size: how many requests a client may make at once (`burst`, an integer ≥ 1);
        /// default one second's worth of `rate`, rounded up, and at least 1.
        public var burst: Int

        /// Creates a limit; `burst` defaults to one second's worth of `rate`.
        public init(rate: Double, burst: Int? = nil) {
            self.rate = rate
            self.burst = burst ?? Self.defaultBurst(rate: rate)
        }

        /// One second's worth of `rate`, at least 1, so that an unset `burst` never refuses a client keeping to `rate`.
        static func defaultBurst(rate: Double) -> Int {
            // Large enough that no real client reaches it, small enough to convert to `Int` safely.
            Int(min(max(rate.rounded(.up), 1), 1_000_000_000))
        }

        /// Reads one `{rate, burst}` (a realm's, or `unifiedpush.rate`).
        public init(section: ConfigSection) throws(ConfigurationError) {
            try section.rejectUnknownKeys(schema: ConfigurationSchema.rateLimit)
            guard let text = try section.string("rate") else {
                throw ConfigurationError(key: section.keyPath("rate"), "is required (requests per second)")
            }
            guard let rate = Double(text.trimmingWhitespace()), rate.isFinite, rate > 0 else {
                throw ConfigurationError(key: section.keyPath("rate"), "must be a number of requests per second greater than 0, got \"\(text)\"")
            }
            self.init(rate: rate, burst: try section.int("burst", atLeast: 1))
        }

        /// Reads `server.rate_limit`: one limit per realm named; an unknown realm is refused with the nearest one suggested.
        static func limits(section: ConfigSection) throws(ConfigurationError) -> [Realm: RateLimit] {
            for key in section.values.keys where Realm(rawValue: key) == nil {
                let hint = KeySuggestion.nearest(to: key, among: Set(ConfigurationSchema.rateLimits.keys)).map { "did you mean \"\($0)\"? " } ?? ""
                throw ConfigurationError(key: section.keyPath(key), "unknown realm (\(hint)expected one of \(RealmNames.list))")
            }
            var limits: [Realm: RateLimit] = [:]
            for realm in Realm.allCases {
                guard let limit = try section.section(realm.rawValue) else { continue }
                limits[realm] = try RateLimit(section: limit)
            }
            return limits
        }
    }
}
