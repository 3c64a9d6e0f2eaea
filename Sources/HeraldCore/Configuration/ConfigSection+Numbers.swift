extension ConfigSection {
    /// The longest duration a key accepts, in seconds (about 31 years).
    ///
    /// `Duration.seconds(_:)` traps on values it cannot represent, so a typo such as
    /// `1e300` must be refused here rather than crash the server at start-up.
    public static let maximumDurationSeconds: Double = 1_000_000_000

    /// A duration written as a number of seconds (decimals allowed, `0.05`), or `nil` when absent.
    ///
    /// - Parameter minimum: the smallest accepted duration; `.zero` unless given.
    public func duration(_ key: String, minimum: Duration = .zero) throws(ConfigurationError) -> Duration? {
        guard let text = try string(key), let seconds = try seconds(key) else { return nil }
        let written = text.trimmingWhitespace()
        guard seconds <= Self.maximumDurationSeconds else {
            throw ConfigurationError(key: keyPath(key), "must be at most \(Int(Self.maximumDurationSeconds)) seconds, got \(written)")
        }
        let duration = Duration.seconds(seconds)
        guard duration >= minimum else {
            throw ConfigurationError(key: keyPath(key), "must be at least \(Self.secondsText(minimum)) seconds, got \(written)")
        }
        return duration
    }

    /// An integer no smaller than `minimum`, or `nil` when absent.
    public func int(_ key: String, atLeast minimum: Int) throws(ConfigurationError) -> Int? {
        guard let value = try int(key) else { return nil }
        guard value >= minimum else {
            throw ConfigurationError(key: keyPath(key), "must be at least \(minimum), got \(value)")
        }
        return value
    }

    /// `duration` as seconds for messages, without a trailing `.0` for whole seconds.
    private static func secondsText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return String(seconds) }
        return String(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
