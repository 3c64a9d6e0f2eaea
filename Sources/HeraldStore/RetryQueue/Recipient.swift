import HeraldCore

/// Who one queued delivery goes to.
public enum Recipient: Sendable, Hashable {
    /// A registered subscriber, read again when the delivery is made (its token may have changed).
    case subscriber(SubscriberID)
    /// A raw token of a provider, never registered (the compat front-ends' sends).
    case token(proto: String, token: String)

    /// The subscriber, when it is one.
    public var subscriberID: SubscriberID? {
        if case .subscriber(let id) = self { id } else { nil }
    }
}
