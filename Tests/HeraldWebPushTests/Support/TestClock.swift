import Foundation
import Synchronization

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let value: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.value = Mutex(start)
    }

    var now: Date { value.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        value.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
