import HeraldCore

/// The outcome of one registration id of a multicast request.
public struct GCMLegacyResult: Sendable, Equatable {
    /// What happened to the delivery.
    public var outcome: DeliveryOutcome
    /// The canonical registration id GCM returned for this token, if any: the app re-registered and the
    /// stored token should be replaced by this one.
    public var canonicalRegistrationID: String?

    /// Creates a result.
    public init(_ outcome: DeliveryOutcome, canonicalRegistrationID: String? = nil) {
        self.outcome = outcome
        self.canonicalRegistrationID = canonicalRegistrationID
    }
}
