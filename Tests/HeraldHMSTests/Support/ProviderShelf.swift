import HeraldCore
import Synchronization

/// The providers a fixture built, shut down when the fixture ends whatever the test did.
///
/// A test's own `shutdown()` is skipped when a `#require` before it fails, and an AsyncHTTPClient released without
/// `shutdown()` traps in debug builds, taking every other running test with it.
final class ProviderShelf: Sendable {
    private let providers = Mutex<[any PushProvider]>([])

    /// Keeps `provider` for ``shutdownAll()`` and returns it.
    func keep(_ provider: any PushProvider) -> any PushProvider {
        providers.withLock { $0.append(provider) }
        return provider
    }

    /// Shuts every kept provider down.
    func shutdownAll() async {
        for provider in providers.withLock({ $0 }) { await provider.shutdown() }
    }
}

/// The outcomes a batch send reports, by index, from whichever threads report them.
final class OutcomeCollector: Sendable {
    private let outcomes: Mutex<[DeliveryOutcome?]>

    /// Room for `count` outcomes, none reported yet.
    init(count: Int) {
        outcomes = Mutex(Array(repeating: nil, count: count))
    }

    /// Records the outcome of delivery `index`.
    func set(_ index: Int, _ outcome: DeliveryOutcome) {
        outcomes.withLock { $0[index] = outcome }
    }

    /// Every outcome, in delivery order; `nil` where none was reported.
    var values: [DeliveryOutcome?] {
        outcomes.withLock { $0 }
    }
}

/// A wall clock the test moves by hand, for the provider's misconfiguration window.
final class ManualClock: Sendable {
    private let milliseconds: Mutex<Int64>

    /// A clock showing `start` (Unix milliseconds).
    init(start: Int64 = 1_700_000_000_000) {
        milliseconds = Mutex(start)
    }

    /// Moves the clock on by `seconds`.
    func advance(seconds: Int64) {
        milliseconds.withLock { $0 += seconds * 1000 }
    }

    /// The clock as providers read it.
    var wallClock: WallClock {
        WallClock(millisecondsSince1970: { self.milliseconds.withLock { $0 } })
    }
}
