/// What the simulator knows about a device token (§1.9 steps 9–11).
enum APNsDeviceStatus: Sendable {
    /// Nothing against it; `topics` are the bundle ids it is registered for, `nil` meaning any.
    case active(topics: Set<String>?)
    /// Marked bad: `400 BadDeviceToken`.
    case bad
    /// Unregistered at this millisecond timestamp: `410 Unregistered`.
    case unregistered(timestampMillis: Int64)
}
