/// How one delivery attempt ended, classified as §11.1 of the pushd API says.
///
/// Each provider kind maps its service's answers to these classes in one table;
/// the pipeline acts on the class only (retry, count, unregister, record).
public struct DeliveryOutcome: Sendable, Equatable {
    /// The class of an outcome.
    public enum Class: String, Sendable, Equatable, CaseIterable {
        /// Accepted by the push service (or webhook).
        case delivered
        /// The token is dead: the subscriber is unregistered.
        case deadToken
        /// Counted against the subscriber; at `delivery.max_failures` it is unregistered.
        case subscriberFailure
        /// The notification itself is wrong (too large, bad field): not counted.
        case messageFailure
        /// Herald's credentials or settings are wrong: not counted, logged at `error`.
        case configurationFailure
        /// Try again later (backoff, honouring `retryAfter`).
        case transient
    }

    /// The class.
    public var outcome: Class
    /// The service's reason (`BadDeviceToken`, `UNREGISTERED`, `connection refused`, ...).
    public var reason: String?
    /// The service's HTTP status, when there was one.
    public var status: Int?
    /// The service's `Retry-After`, when it gave one.
    public var retryAfter: Duration?
    /// For APNs 410: milliseconds since 1970 when the token became invalid. The
    /// subscriber is only unregistered if it has not registered again since.
    public var invalidSince: Int64?
    /// For a delivery the service accepted under an outdated token: the token to store instead (legacy GCM's
    /// canonical `registration_id`).
    public var replacementToken: String?

    /// Creates an outcome.
    public init(
        _ outcome: Class, reason: String? = nil, status: Int? = nil, retryAfter: Duration? = nil, invalidSince: Int64? = nil,
        replacementToken: String? = nil
    ) {
        self.outcome = outcome
        self.reason = reason
        self.status = status
        self.retryAfter = retryAfter
        self.invalidSince = invalidSince
        self.replacementToken = replacementToken
    }

    /// A successful delivery.
    public static let delivered = DeliveryOutcome(.delivered)
}
