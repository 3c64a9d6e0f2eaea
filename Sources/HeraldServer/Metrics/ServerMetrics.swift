import HeraldPipeline
import Metrics
import Prometheus
import Synchronization

/// The server's Prometheus registry and the instruments of the HTTP front.
///
/// Each application has its own registry rather than the process-wide `MetricsSystem`,
/// so several servers in one process (the tests) keep separate counts.
public struct ServerMetrics: Sendable {
    /// The registry `GET /metrics` renders.
    public let registry: PrometheusCollectorRegistry
    /// The factory every component creates its instruments with.
    public let factory: PrometheusMetricsFactory

    private let backlogJobs: Metrics.Gauge
    private let backlogRetries: Metrics.Gauge
    private let listeners: Metrics.Gauge
    private let retriesDue: Metrics.Gauge
    /// What other components record just before the registry is read (the bulkheads' in-flight counts).
    private let samplers: SamplerList

    /// Creates a fresh registry.
    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
        ]
        self.registry = registry
        self.factory = factory
        self.backlogJobs = Metrics.Gauge(label: "herald_backlog", dimensions: [("kind", "jobs")], factory: factory)
        self.backlogRetries = Metrics.Gauge(label: "herald_backlog", dimensions: [("kind", "retries")], factory: factory)
        self.listeners = Metrics.Gauge(label: "herald_sse_listeners", factory: factory)
        self.retriesDue = Metrics.Gauge(label: "herald_retries_due", factory: factory)
        self.samplers = SamplerList()
    }

    /// Adds `sampler`, run whenever the gauges are sampled, before the registry is rendered.
    public func addSampler(_ sampler: @escaping @Sendable () -> Void) {
        samplers.append(sampler)
    }

    /// Counts an HTTP request by route pattern (not the raw path, to keep labels bounded) and status.
    func request(route: String, method: String, status: Int) {
        Metrics.Counter(label: "herald_http_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory)
            .increment()
    }

    /// Records the sampled gauges.
    func sample(jobs: Int, retries: Int, retriesDue: Int, listeners: Int, providers: ProviderSet) {
        backlogJobs.record(jobs)
        backlogRetries.record(retries)
        self.retriesDue.record(retriesDue)
        self.listeners.record(listeners)
        samplers.runAll()
        for (name, provider) in providers.byName {
            guard let statistics = provider.connectionStatistics else { continue }
            Metrics.Gauge(label: "herald_provider_connections", dimensions: [("provider", name)], factory: factory).record(statistics.connections)
            Metrics.Gauge(label: "herald_provider_streams", dimensions: [("provider", name), ("state", "in_use")], factory: factory)
                .record(statistics.streamsInUse)
            Metrics.Gauge(label: "herald_provider_streams", dimensions: [("provider", name), ("state", "queued")], factory: factory)
                .record(statistics.queued)
        }
    }
}
