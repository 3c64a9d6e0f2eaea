/// The front-end a delivery came through (`pushd`, `gorush`, `apns-ms`, ...).
///
/// Every delivery and every feedback entry carries one, so each front-end can serve its own
/// feedback (apns-ms's expired devices, push2mob's `feedback`) and `GET /feedback` can filter by it.
public struct DeliveryOrigin: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The front-end's name.
    public let rawValue: String

    /// Wraps a front-end name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a front-end name.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The rs/pushd API: HTTP, UDP and Server-Sent Events on Herald's own ports.
    public static let pushd = DeliveryOrigin("pushd")

    public var description: String { rawValue }
}
