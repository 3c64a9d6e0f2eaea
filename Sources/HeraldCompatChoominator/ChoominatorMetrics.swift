import Metrics

/// `herald_choominator_datagrams_total{port,result[,reason]}`: every datagram of both ports, by what
/// became of it (`accepted`, `no_recipients`, or `rejected` with the rejection's reason).
struct ChoominatorMetrics: Sendable {
    private let factory: any MetricsFactory

    /// Creates the instruments with `factory`.
    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Counts a datagram that was acted on.
    func acted(port: String, result: String) {
        Counter(label: "herald_choominator_datagrams_total", dimensions: [("port", port), ("result", result)], factory: factory).increment()
    }

    /// Counts a dropped datagram.
    func rejected(port: String, _ rejection: ChoominatorRejection) {
        Counter(
            label: "herald_choominator_datagrams_total", dimensions: [("port", port), ("reason", rejection.reason), ("result", "rejected")],
            factory: factory
        ).increment()
    }
}
