/// Identifies one connection of a pool in the state machine and in logs.
struct HTTP2ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// A number unique within the pool, increasing with each new connection.
    let rawValue: Int

    /// `h2-<n>`, for logs.
    var description: String {
        "h2-\(self.rawValue)"
    }
}
