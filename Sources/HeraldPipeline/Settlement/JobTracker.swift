import HeraldCore
import HeraldStore
import Synchronization

/// One job being fanned out by this process: its progress, its in-flight window, and whether
/// its lease is still ours.
///
/// The fan-out hands pages over through it; the settler marks outcomes settled and writes its
/// checkpoints. A delivery's window slot is given back as soon as its outcome arrives: the
/// window bounds the deliveries out at once, and so what a crash can find unanswered.
final class JobTracker: Sendable {
    /// The job as claimed.
    let job: PublishJob
    /// Deliveries of this job handed to providers and not yet answered.
    let window: AsyncSemaphore
    private let state: Mutex<State>

    private struct State {
        var progress: FanOutProgress
        var leaseLost = false
    }

    /// Starts tracking a claimed job with a window of `inFlight` deliveries; `resent` are the
    /// members its last checkpoint left unanswered.
    init(job: PublishJob, resent: [SubscriberID], inFlight: Int) {
        self.job = job
        self.window = AsyncSemaphore(capacity: inFlight)
        self.state = Mutex(State(progress: FanOutProgress(cursor: job.cursor, pending: resent)))
    }

    /// Whether another worker holds the job now: this one stops handing pages over.
    var leaseLost: Bool { state.withLock { $0.leaseLost } }

    /// Members of a page (after the cursor) are being handed over.
    func handOver(_ ids: some Sequence<SubscriberID>, through last: SubscriberID) {
        state.withLock { $0.progress.handOver(ids, through: last) }
    }

    /// Every page was read.
    func finishReading() {
        state.withLock { $0.progress.finishReading() }
    }

    /// Outcomes for `ids` are part of the settlement about to be committed.
    func settle(_ ids: [SubscriberID]) {
        state.withLock { state in
            for id in ids { state.progress.settle(id) }
        }
    }

    /// The checkpoint to write with the next settlement, if anything changed.
    func checkpoint(lease: Lease) -> JobCheckpoint? {
        state.withLock { state in
            guard state.progress.changed, !state.leaseLost else { return nil }
            let (cursor, pending, complete) = state.progress.checkpoint()
            return JobCheckpoint(jobID: job.id, lease: lease, cursor: cursor, pending: pending, complete: complete)
        }
    }

    /// The store said another worker holds the job.
    func loseLease() {
        state.withLock { $0.leaseLost = true }
    }

    /// Whether the tracker has nothing left to do: complete (and checkpointed) or taken over.
    var isFinished: Bool {
        state.withLock { ($0.progress.isComplete && !$0.progress.changed) || $0.leaseLost }
    }
}
