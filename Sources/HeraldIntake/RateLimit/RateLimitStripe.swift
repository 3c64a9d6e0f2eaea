import Synchronization

/// One lock's share of a ``RateLimiter``'s buckets: requests of clients in different stripes never wait for each other.
final class RateLimitStripe: Sendable {
    /// The stripe's buckets.
    let table: Mutex<RateLimitTable>

    /// An empty stripe of at most `maxBuckets` buckets.
    init(maxBuckets: Int) {
        table = Mutex(RateLimitTable(maxBuckets: maxBuckets))
    }
}
