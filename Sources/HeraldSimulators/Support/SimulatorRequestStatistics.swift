/// The counters that every simulator's statistics keep in the same way, which ``SimulatorRecorder`` maintains.
protocol SimulatorRequestStatistics: Sendable {
    /// What error answers are counted by: a reason or error code, or an HTTP status.
    associatedtype RejectionKey: Hashable & Sendable

    /// Statistics with every counter at 0.
    init()

    /// Requests received, whatever their outcome.
    var requests: Int { get set }
    /// Requests accepted.
    var accepted: Int { get set }
    /// Error answers, injected ones included, by ``RejectionKey``.
    var rejections: [RejectionKey: Int] { get set }
}
