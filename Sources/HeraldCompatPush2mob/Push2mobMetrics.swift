import Metrics

/// `herald_push2mob_requests_total{socket,result[,reason]}`: every request of both sockets, by what
/// became of it (`sent`, `feedback`, or `refused` with the check that failed).
struct Push2mobMetrics: Sendable {
    private let factory: any MetricsFactory

    /// Creates the instruments with `factory`.
    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Counts a request answered `OK`.
    func answered(socket: String, result: String) {
        Counter(label: "herald_push2mob_requests_total", dimensions: [("socket", socket), ("result", result)], factory: factory).increment()
    }

    /// Counts a request answered `ERROR ...`.
    func refused(socket: String, _ refusal: Push2mobRefusal) {
        Counter(
            label: "herald_push2mob_requests_total", dimensions: [("socket", socket), ("reason", refusal.reason), ("result", "refused")],
            factory: factory
        ).increment()
    }
}
