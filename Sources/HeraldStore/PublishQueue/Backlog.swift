import HeraldCore

/// Accepted work that is not yet done.
public struct Backlog: Sendable, Equatable {
    /// Publish jobs not yet fully fanned out.
    public var jobs: Int
    /// Deliveries waiting for a retry.
    public var retries: Int

    /// Creates a backlog count.
    public init(jobs: Int, retries: Int) {
        self.jobs = jobs
        self.retries = retries
    }
}
