import HeraldCore
import HeraldStore

/// One thing an attempt's result does, as ``OutcomePolicy`` decides it; the engine applies the
/// list to the next settlement.
enum OutcomeEffect: Sendable, Equatable {
    /// Records the result on the subscriber, the statistics row and the feedback log;
    /// `deadLetter` keeps a failure for good as a dead letter.
    case record(DeliveryRecord.Effect, deadLetter: Bool)
    /// Tries again at `dueAt` (Unix milliseconds) with `attempts` counted: a first attempt joins
    /// the delivery queue, a queued one is put back with its new count.
    case retry(attempts: Int, dueAt: Int64, reason: String)
    /// The queued delivery the attempt came from is done, whatever its result.
    case finishQueued
    /// Stores the token the push service named instead of the one sent (legacy GCM's canonical id).
    case replaceToken(String)
    /// Adds to the receipt of the attempt's publication.
    case countInReceipt(ReceiptProgress)
    /// Tells the operator that the provider's configuration is wrong (a log line at error level).
    case reportConfigurationFailure(reason: String, status: Int?)
}
