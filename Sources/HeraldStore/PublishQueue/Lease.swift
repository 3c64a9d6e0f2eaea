import HeraldCore

/// A claim on work: who holds it and until when.
public struct Lease: Sendable, Equatable {
    /// The worker's identity (unique per process).
    public var owner: String
    /// Unix milliseconds after which another worker may take the work.
    public var expiresAt: Int64

    /// Creates a lease.
    public init(owner: String, expiresAt: Int64) {
        self.owner = owner
        self.expiresAt = expiresAt
    }
}
