import HeraldCore

/// The outcome of a single subscribe (§4.10).
public enum SubscribeResult: Sendable, Equatable {
    /// A new subscription was made.
    case created
    /// The subscription existed; its option was overwritten.
    case updated
    /// No subscriber has that id; nothing was stored.
    case unknownSubscriber
}
