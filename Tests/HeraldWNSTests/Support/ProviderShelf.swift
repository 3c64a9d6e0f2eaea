import HeraldCore
import Synchronization

/// The providers a fixture built, shut down when the fixture ends whatever the test did.
///
/// A test's own `shutdown()` is skipped when a `#require` before it fails, and an AsyncHTTPClient
/// released without `shutdown()` traps in debug builds, taking every other running test with it.
final class ProviderShelf: Sendable {
    private let providers = Mutex<[any PushProvider]>([])

    /// Keeps `provider` for ``shutdownAll()`` and returns it.
    func keep(_ provider: any PushProvider) -> any PushProvider {
        providers.withLock { $0.append(provider) }
        return provider
    }

    /// Shuts every kept provider down (again, for those the test already shut down: that does nothing).
    func shutdownAll() async {
        for provider in providers.withLock({ $0 }) { await provider.shutdown() }
    }
}
