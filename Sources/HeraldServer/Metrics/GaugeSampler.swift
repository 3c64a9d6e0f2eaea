import HeraldCore
import HeraldPipeline
import HeraldStore

/// Brings the sampled gauges up to date (backlog, retries due, listeners, providers' connections,
/// deliveries in flight) before the registry is rendered: by `GET /metrics` and each tick of the
/// dashboard's stream, so both show the same names and values.
struct GaugeSampler: Sendable {
    /// The queues whose sizes are sampled.
    let store: any PublishQueue & RetryQueue & StoreRuntime
    let metrics: ServerMetrics
    let hub: EventStreamHub?
    let providers: ProviderSet

    /// Reads the store's counts and records every sampled gauge.
    func sample() async throws {
        let backlog = try await store.backlog()
        let due = try await store.retriesDue(nowMillis: store.clock.nowMillis())
        metrics.sample(jobs: backlog.jobs, retries: backlog.retries, retriesDue: due, listeners: hub?.listenerCount ?? 0, providers: providers)
    }
}
