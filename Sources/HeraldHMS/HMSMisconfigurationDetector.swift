import Synchronization

/// Tells a batch of dead tokens from a misconfigured provider when Push Kit answers `80300007` (every token of the
/// batch is invalid): a pure state machine, the time passed in.
///
/// One such answer is a batch of stale tokens. The same answer to every batch of the last minute, with no batch
/// accepted since, is something else: tokens registered with another app than `client_id` (a wrong app id or
/// secret of the same developer account). Then dropping the tokens would unregister every subscriber of the
/// provider, so the batch is reported as the provider failing instead.
///
/// "Every batch of the last minute" needs at least ``minimumBatches`` such answers within ``window`` of each other
/// and no accepted batch within ``window``: the first batch of a misconfigured provider is still taken as dead
/// tokens, which bounds the harm to one batch, while one stale batch among accepted ones is never taken for a
/// misconfiguration.
public struct HMSMisconfigurationDetector: Sendable, Equatable {
    /// What an `80300007` answer means.
    public enum Verdict: Sendable, Equatable {
        /// The batch's tokens are dead.
        case deadTokens
        /// The provider is probably misconfigured; `newly` the first time since it last worked, for one log line.
        case misconfigured(newly: Bool)
    }

    /// How far back "the last minute" reaches, in milliseconds.
    public let window: Int64
    /// How many `80300007` answers within ``window`` (the current one included) make a misconfiguration.
    public let minimumBatches: Int

    /// When a batch was last accepted (delivered in full or in part), Unix milliseconds.
    public private(set) var lastAccepted: Int64?
    /// The times of the last ``minimumBatches`` `80300007` answers, oldest first.
    public private(set) var recentInvalid: [Int64] = []
    /// Whether the last verdict was a misconfiguration.
    public private(set) var isMisconfigured = false

    /// Creates a detector that has seen nothing; `window` in milliseconds.
    public init(window: Int64 = 60_000, minimumBatches: Int = 2) {
        self.window = max(0, window)
        self.minimumBatches = max(1, minimumBatches)
    }

    /// Counts a batch Push Kit accepted (`80000000`, `80100000`) at `now`: the credentials work.
    public mutating func recordAccepted(now: Int64) {
        lastAccepted = max(lastAccepted ?? now, now)
        recentInvalid.removeAll()
        isMisconfigured = false
    }

    /// Counts an `80300007` answer at `now` and says what it means.
    public mutating func recordAllTokensInvalid(now: Int64) -> Verdict {
        recentInvalid.append(now)
        if recentInvalid.count > minimumBatches {
            recentInvalid.removeFirst(recentInvalid.count - minimumBatches)
        }
        let acceptedLately = lastAccepted.map { now - $0 <= window } ?? false
        guard !acceptedLately, recentInvalid.count >= minimumBatches, now - recentInvalid[0] <= window else {
            isMisconfigured = false
            return .deadTokens
        }
        let newly = !isMisconfigured
        isMisconfigured = true
        return .misconfigured(newly: newly)
    }
}

/// A provider's detector behind a lock, shared by the batches it sends at once.
final class HMSMisconfigurationMonitor: Sendable {
    private let detector: Mutex<HMSMisconfigurationDetector>

    /// Creates a monitor starting from `detector`.
    init(_ detector: HMSMisconfigurationDetector) {
        self.detector = Mutex(detector)
    }

    /// See ``HMSMisconfigurationDetector/recordAccepted(now:)``.
    func recordAccepted(now: Int64) {
        detector.withLock { $0.recordAccepted(now: now) }
    }

    /// See ``HMSMisconfigurationDetector/recordAllTokensInvalid(now:)``.
    func recordAllTokensInvalid(now: Int64) -> HMSMisconfigurationDetector.Verdict {
        detector.withLock { $0.recordAllTokensInvalid(now: now) }
    }
}
