extension WNSSimulator {
    /// What a channel answers.
    public enum ChannelState: Sendable, Hashable {
        /// Notifications are received.
        case active
        /// The device is offline: toasts and raw notifications are answered `200 dropped`, tiles and badges are
        /// received (WNS caches the latest one).
        case offline
        /// The channel expired: `410`.
        case expired
    }
}
