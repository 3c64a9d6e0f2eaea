import HeraldCore

extension HeraldConfiguration {
    /// Server-Sent Events (`event_source`, `GET /subscribe`).
    public struct EventSource: Sendable, Equatable {
        /// Whether `GET /subscribe` is served (`event_source.enabled`); default `true`.
        public var enabled: Bool
        /// How often an idle stream gets a keepalive `"\n"` (`event_source.keepalive_interval`); default 10 s.
        public var keepaliveInterval: Duration
        /// Messages buffered per listener before a slow listener is disconnected
        /// (`event_source.max_buffered`); default 1024.
        public var maxBuffered: Int
        /// Open listeners beyond which `GET /subscribe` answers 503 (`event_source.max_listeners`); default
        /// 20000. A listener on plain HTTP/1.1 takes about 8 KB of memory and one file descriptor.
        public var maxListeners: Int
        /// How long published events are kept for a listener that reconnects with `Last-Event-ID`
        /// (`event_source.replay_window`, seconds; `0`: none); default 600 s, at most 10,000 events.
        public var replayWindow: Duration

        /// Creates an event-source section.
        public init(
            enabled: Bool = true, keepaliveInterval: Duration = .seconds(10), maxBuffered: Int = 1024, maxListeners: Int = 20_000,
            replayWindow: Duration = .seconds(600)
        ) {
            self.replayWindow = replayWindow
            self.enabled = enabled
            self.keepaliveInterval = keepaliveInterval
            self.maxBuffered = maxBuffered
            self.maxListeners = maxListeners
        }

        /// Reads `event_source`, or the defaults when it is absent.
        init(section: ConfigSection?) throws(ConfigurationError) {
            self.init()
            guard let section else { return }
            try section.rejectUnknownKeys(schema: ConfigurationSchema.eventSource)
            enabled = try section.bool("enabled") ?? enabled
            keepaliveInterval = try section.duration("keepalive_interval", minimum: .milliseconds(1)) ?? keepaliveInterval
            maxBuffered = try section.int("max_buffered", atLeast: 1) ?? maxBuffered
            maxListeners = try section.int("max_listeners", atLeast: 1) ?? maxListeners
            replayWindow = try section.duration("replay_window") ?? replayWindow
        }
    }
}
