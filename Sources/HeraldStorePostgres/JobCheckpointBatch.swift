import HeraldStore

/// A settlement's job checkpoints in the form two statements read: the unfinished jobs' new
/// cursors as JSON records, the complete ones as parallel arrays.
struct JobCheckpointBatch: Sendable {
    struct Update: Encodable, Sendable {
        var id: Int64
        var owner: String
        var cursor: String?
        var pending: String?
        var lease_expires: Int64
    }

    /// Every job of the settlement, in its order (for reporting lost leases).
    var order: [Int64] = []
    var updates: [Update] = []
    var completedIDs: [Int64] = []
    var completedOwners: [String] = []

    init(_ checkpoints: [JobCheckpoint]) throws {
        for checkpoint in checkpoints {
            order.append(checkpoint.jobID)
            if checkpoint.complete {
                completedIDs.append(checkpoint.jobID)
                completedOwners.append(checkpoint.lease.owner)
            } else {
                updates.append(Update(
                    id: checkpoint.jobID, owner: checkpoint.lease.owner, cursor: checkpoint.cursor?.rawValue,
                    pending: try PendingMembersCodec.text(checkpoint.pending), lease_expires: checkpoint.lease.expiresAt))
            }
        }
    }
}
