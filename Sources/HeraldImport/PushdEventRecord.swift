import HeraldCore
import HeraldStore

/// An `event:<name>` hash of rs/pushd: `created` (set by the first subscription), `total`
/// (publishes) and `last` (the last publish's time).
struct PushdEventRecord: Sendable {
    /// The name after `event:`.
    var name: String
    /// The hash's fields.
    var hash: [String: String]

    /// The statistics to import, or why not.
    func read() -> Result<ImportedEventStatistics, EventSkip> {
        guard let event = EventName(name) else { return .failure(.invalidName) }
        guard let created = hash["created"].flatMap(PushdSubscriberRecord.seconds) else { return .failure(.malformed) }
        var total: Int64 = 0
        if let text = hash["total"] {
            guard let value = Int64(text), value >= 0 else { return .failure(.malformed) }
            total = value
        }
        var last: Int64?
        if let text = hash["last"] {
            guard let value = PushdSubscriberRecord.seconds(text) else { return .failure(.malformed) }
            last = value
        }
        return .success(ImportedEventStatistics(event: event, created: created, total: total, last: last))
    }

    /// Why an event's statistics are not imported.
    enum EventSkip: String, Error {
        case invalidName = "invalid event name"
        case malformed = "malformed statistics (created, total or last not a whole number)"
        case unsubscribed = "no subscriptions (or, for unicast:<id>, no such subscriber)"
        case notAHash = "event key is not a hash"
    }
}
