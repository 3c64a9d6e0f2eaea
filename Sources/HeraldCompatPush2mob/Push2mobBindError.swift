/// A push2mob socket could not bind its endpoint: a start-up error naming the key (compat.md §3.1).
struct Push2mobBindError: Error, CustomStringConvertible {
    /// The configuration key (`compat.push2mob.apns_bind`).
    let key: String
    /// The endpoint asked for.
    let endpoint: String
    /// libzmq's reason.
    let reason: String

    var description: String { "\(key): cannot bind \(endpoint): \(reason)" }
}
