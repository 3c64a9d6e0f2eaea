extension MPNSSimulator {
    /// What a channel answers, with the status headers MPNS sent in each case.
    public enum ChannelState: Sendable, Hashable {
        /// `200`, `Received` / `Active` / `Connected`.
        case active
        /// The subscription expired: `404`, `Dropped` / `Expired` / `Disconnected`.
        case expired
        /// The device is inactive: `412`, `Dropped` / `Active` / `Inactive`.
        case inactive
        /// The device's queue is full: `200`, `QueueFull` / `Active` / `Connected`.
        case queueFull
        /// The app turned this kind of notification off: `200`, `Suppressed` / `Active` / `Connected`.
        case suppressed
    }
}
