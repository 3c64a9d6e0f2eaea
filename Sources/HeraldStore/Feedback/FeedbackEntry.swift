import HeraldCore

/// An entry of the feedback log: something a push service reported, or an unregistration.
public struct FeedbackEntry: Sendable, Equatable {
    /// What Herald did about it.
    public enum Action: String, Sendable, Hashable {
        /// The subscriber was unregistered.
        case unregistered
        /// The delivery failed; the subscriber was kept.
        case failed
        /// The push service said the token is invalid, but the subscriber registered again since, so it was kept.
        case kept
        /// The subscriber's provider is not configured any more; it was skipped.
        case skipped
        /// The push service named a newer token for the subscriber (legacy GCM's canonical id); it was stored.
        case replaced
        /// The push service said a raw token (no subscriber) is no longer valid: its sender should stop using it.
        case invalid
    }

    /// Increasing id: a cursor for readers.
    public var id: Int64
    /// Unix seconds.
    public var time: Int64
    /// The subscriber (`nil`: a raw token, sent by a compat front-end).
    public var subscriberID: SubscriberID?
    /// The front-end the delivery came through.
    public var origin: DeliveryOrigin
    /// Its provider name.
    public var proto: String
    /// Its token.
    public var token: String
    /// The service's HTTP status, if any.
    public var status: Int?
    /// The reason (`BadDeviceToken`, `failures:5`, ...).
    public var reason: String
    /// What Herald did.
    public var action: Action
    /// For ``Action/replaced``: the token stored instead of ``token``.
    public var replacement: String?
    /// The sender's own id for the notification (a prepared payload's ``PreparedPayload/reference``).
    public var reference: String?
    /// For a dead token: when the service says it stopped being valid (Unix milliseconds, APNs's
    /// `timestamp`), if it said.
    public var invalidSince: Int64?

    /// Creates an entry.
    public init(
        id: Int64 = 0, time: Int64, subscriberID: SubscriberID?, origin: DeliveryOrigin = .pushd, proto: String, token: String, status: Int?,
        reason: String, action: Action, replacement: String? = nil, reference: String? = nil, invalidSince: Int64? = nil
    ) {
        self.reference = reference
        self.invalidSince = invalidSince
        self.id = id
        self.time = time
        self.subscriberID = subscriberID
        self.origin = origin
        self.proto = proto
        self.token = token
        self.status = status
        self.reason = reason
        self.action = action
        self.replacement = replacement
    }
}
