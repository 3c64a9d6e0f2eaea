import HeraldCore
import Metrics

/// Counts what the intake accepts and refuses, per front-end.
///
/// `herald_publishes_total{result}` keeps the names the HTTP front has always used;
/// `herald_raw_sends_total{origin,result}` counts raw-token deliveries accepted per front-end.
public struct IntakeMetrics: Sendable {
    private let factory: any MetricsFactory
    private let publishesAccepted: Counter

    /// Creates the instruments with `factory`.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        self.publishesAccepted = Counter(label: "herald_publishes_total", dimensions: [("result", "accepted")], factory: factory)
    }

    func publishAccepted() { publishesAccepted.increment() }

    func publishRejected(_ error: IntakeError) {
        Counter(label: "herald_publishes_total", dimensions: [("code", error.code.description), ("result", "rejected")], factory: factory)
            .increment()
    }

    func rawSends(_ count: Int, origin: DeliveryOrigin) {
        Counter(label: "herald_raw_sends_total", dimensions: [("origin", origin.rawValue), ("result", "accepted")], factory: factory)
            .increment(by: count)
    }

    func rawSendRejected(_ error: IntakeError, origin: DeliveryOrigin) {
        Counter(
            label: "herald_raw_sends_total", dimensions: [("code", error.code.description), ("origin", origin.rawValue), ("result", "rejected")],
            factory: factory
        ).increment()
    }
}
