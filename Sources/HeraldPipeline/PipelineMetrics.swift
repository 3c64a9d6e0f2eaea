import HeraldCore
import Metrics

/// The pipeline's swift-metrics instruments, created once per provider and outcome.
struct PipelineMetrics: Sendable {
    private let deliveries: [String: [DeliveryOutcome.Class: Counter]]
    private let latency: [String: Metrics.Timer]
    private let retries: [String: Counter]
    private let deadLetters: [String: Counter]
    private let factory: any MetricsFactory

    init(providerNames: [String], factory: any MetricsFactory) {
        self.factory = factory
        var deliveries: [String: [DeliveryOutcome.Class: Counter]] = [:]
        var latency: [String: Metrics.Timer] = [:]
        var retries: [String: Counter] = [:]
        var deadLetters: [String: Counter] = [:]
        for name in providerNames {
            var byOutcome: [DeliveryOutcome.Class: Counter] = [:]
            for outcome in DeliveryOutcome.Class.allCases {
                byOutcome[outcome] = Counter(label: "herald_deliveries_total", dimensions: [("provider", name), ("outcome", outcome.rawValue)], factory: factory)
            }
            deliveries[name] = byOutcome
            latency[name] = Metrics.Timer(label: "herald_delivery_duration_seconds", dimensions: [("provider", name)], factory: factory)
            retries[name] = Counter(label: "herald_retries_total", dimensions: [("provider", name)], factory: factory)
            deadLetters[name] = Counter(label: "herald_dead_letters_total", dimensions: [("provider", name)], factory: factory)
        }
        self.deliveries = deliveries
        self.latency = latency
        self.retries = retries
        self.deadLetters = deadLetters
    }

    /// The instruments of `provider`'s sends, found once for a batch rather than by name per delivery.
    func sendRecorder(provider: String) -> SendRecorder {
        SendRecorder(byOutcome: deliveries[provider] ?? [:], latency: latency[provider])
    }

    /// One provider's delivery counters and latency timer.
    struct SendRecorder: Sendable {
        let byOutcome: [DeliveryOutcome.Class: Counter]
        let latency: Metrics.Timer?

        /// Counts an answer and records its latency.
        func record(_ outcome: DeliveryOutcome.Class, milliseconds: Int64) {
            byOutcome[outcome]?.increment()
            latency?.recordMilliseconds(milliseconds)
        }
    }

    func recordRetry(provider: String) {
        retries[provider]?.increment()
    }

    func recordDeadLetter(provider: String) {
        deadLetters[provider]?.increment()
    }

    func recordUnregistration(reason: String) {
        // Reasons like `failures:5` are folded so the label set stays small.
        let label = reason.hasPrefix("failures:") ? "failures" : reason
        Counter(label: "herald_unregistrations_total", dimensions: [("reason", label)], factory: factory).increment()
    }
}
