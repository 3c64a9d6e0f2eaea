import Synchronization

/// The closures ``ServerMetrics`` runs before its registry is read; shared by every copy of the
/// metrics value, so a sampler added once is seen by all of them.
final class SamplerList: Sendable {
    private let samplers = Mutex<[@Sendable () -> Void]>([])

    /// Adds a sampler.
    func append(_ sampler: @escaping @Sendable () -> Void) {
        samplers.withLock { $0.append(sampler) }
    }

    /// Runs every sampler, outside the lock (a sampler may take locks of its own).
    func runAll() {
        for sampler in samplers.withLock({ $0 }) { sampler() }
    }
}
