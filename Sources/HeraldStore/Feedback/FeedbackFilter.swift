import HeraldCore

/// Which feedback entries a reader wants; every given field must match.
public struct FeedbackFilter: Sendable, Equatable {
    /// Of deliveries that came through this front-end.
    public var origin: DeliveryOrigin?
    /// Of this provider.
    public var proto: String?

    /// Creates a filter; with no argument it matches everything.
    public init(origin: DeliveryOrigin? = nil, proto: String? = nil) {
        self.origin = origin
        self.proto = proto
    }
}
