import HeraldCore

/// Everything a group of delivery outcomes changes, applied by the store in one transaction.
///
/// The pipeline gathers the outcomes that arrived over a few milliseconds, from any number
/// of jobs and retries, and settles them together: statistics, failure counters,
/// unregistrations, feedback, dead letters, retries and the progress of every job they
/// belong to. Because the progress is written in the same transaction as the effects, a
/// crash can never count an outcome twice, nor forget one it recorded.
public struct Settlement: Sendable, Equatable {
    /// Delivery effects (statistics, failure counters, feedback, dead letters).
    public var records: [DeliveryRecord] = []
    /// Feedback that is no delivery result (a subscriber of a provider no longer configured).
    public var feedback: [FeedbackEntry] = []
    /// Tokens a push service said to use instead.
    public var replacements: [TokenReplacement] = []
    /// First failures to try again (ids are assigned by the store).
    public var newRetries: [QueuedDelivery] = []
    /// Claimed retries put back for another attempt, their leases released.
    public var rescheduledRetries: [RetryReschedule] = []
    /// Claimed retries that ended (delivered, failed for good, or their subscriber gone).
    public var finishedRetries: [Int64] = []
    /// The progress of each job some of these outcomes belong to.
    public var jobs: [JobCheckpoint] = []
    /// What these outcomes add to each publish's receipt, by publish id.
    public var receipts: [String: ReceiptProgress] = [:]

    /// An empty settlement.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool {
        records.isEmpty && feedback.isEmpty && replacements.isEmpty && newRetries.isEmpty && rescheduledRetries.isEmpty
            && finishedRetries.isEmpty && jobs.isEmpty && receipts.isEmpty
    }
}

/// The next attempt of a claimed retry.
public struct RetryReschedule: Sendable, Equatable {
    /// The retry.
    public var id: Int64
    /// Attempts made so far.
    public var attempts: Int
    /// Unix milliseconds when it is due.
    public var dueAt: Int64
    /// The last failure's reason.
    public var lastReason: String?

    /// Creates a reschedule.
    public init(id: Int64, attempts: Int, dueAt: Int64, lastReason: String?) {
        self.id = id
        self.attempts = attempts
        self.dueAt = dueAt
        self.lastReason = lastReason
    }
}

/// How far a job's fan-out got, as of the outcomes of the same settlement.
///
/// Every member up to and including ``cursor`` was handed to its provider, and the outcome
/// of each of them is recorded except for those listed in ``pending``. A worker resuming the
/// job sends ``pending`` again and continues after ``cursor``.
public struct JobCheckpoint: Sendable, Equatable {
    /// The job.
    public var jobID: Int64
    /// The worker that holds it: nothing is written unless it still does.
    public var lease: Lease
    /// The last member handed to a provider.
    public var cursor: SubscriberID?
    /// Members up to ``cursor`` whose outcome is not recorded yet.
    public var pending: PendingMembers
    /// Whether the job is finished (its audience exhausted, nothing pending): it is removed.
    public var complete: Bool

    /// Creates a checkpoint.
    public init(jobID: Int64, lease: Lease, cursor: SubscriberID?, pending: PendingMembers, complete: Bool) {
        self.jobID = jobID
        self.lease = lease
        self.cursor = cursor
        self.pending = pending
        self.complete = complete
    }
}

/// What settling changed that the pipeline reports or acts on.
public struct SettlementSummary: Sendable, Equatable {
    /// Subscribers unregistered (dead tokens, too many failures, duplicate canonical ids), with the reason.
    public var unregistered: [(id: SubscriberID, reason: String)] = []
    /// Jobs whose lease another worker holds now: their checkpoints were not written.
    public var lostJobs: [Int64] = []

    /// An empty summary.
    public init() {}

    public static func == (lhs: SettlementSummary, rhs: SettlementSummary) -> Bool {
        lhs.unregistered.map(\.id) == rhs.unregistered.map(\.id) && lhs.unregistered.map(\.reason) == rhs.unregistered.map(\.reason)
            && lhs.lostJobs == rhs.lostJobs
    }
}

/// Settling outcomes in groups, and what the pipeline needs around it.
public protocol DeliverySettlement: Sendable {
    /// Applies a settlement in one transaction, as ``FeedbackLog/record(_:maxFailures:now:)``,
    /// ``FeedbackLog/replaceTokens(_:now:)``, ``RetryQueue/scheduleRetries(_:)``,
    /// ``RetryQueue/rescheduleRetry(id:attempts:dueAt:lastReason:)``, ``RetryQueue/completeRetry(id:)``
    /// and a conditional checkpoint (or removal) of each job would, in that order.
    func settle(_ settlement: Settlement, maxFailures: Int, now: Int64) async throws -> SettlementSummary

    /// Extends every lease `owner` holds, on jobs and retries, to `expiresAt` (Unix milliseconds):
    /// a delivery may stay unanswered for longer than a lease lasts.
    func renewLeases(owner: String, expiresAt: Int64) async throws

    /// The members of a job's audience among `ids` (those still subscribed), ascending by id.
    func members(of job: PublishJob, among ids: [SubscriberID]) async throws -> [AudienceMember]

    /// The subscribers among `ids` that exist, in no particular order.
    func subscribers(_ ids: [SubscriberID]) async throws -> [Subscriber]
}
