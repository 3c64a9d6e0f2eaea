import HeraldCore
import HeraldStore

/// Queued deliveries in the form one `INSERT … SELECT` reads: a JSON record per delivery, and
/// each distinct content once in two parallel arrays that the records point into (1-based).
struct QueuedDeliveryBatch: Sendable {
    /// One delivery; optional fields are left out of the JSON, which `jsonb_to_recordset` reads as `NULL`.
    struct Row: Encodable, Sendable {
        var n: Int
        var c: Int
        /// The entry's id: read only by ``PostgresStore/importQueuedDeliveries(_:)``, which keeps ids.
        var id: Int64
        var subscriber_id: String?
        var proto: String?
        var token: String?
        var origin: String
        var statistics_event: String?
        var silent: Bool
        var badge: Int?
        var attempts: Int
        var max_attempts: Int?
        var due_at: Int64
        var published_at: Int64
        var last_reason: String?
        var publish_id: String?
    }

    var rows: [Row] = []
    /// Each distinct content once.
    var contents = DistinctContents()

    /// Encodes `entries`, each distinct content once.
    init(_ entries: [QueuedDelivery]) throws {
        rows.reserveCapacity(entries.count)
        for (n, entry) in entries.enumerated() {
            let c = try contents.position(of: entry.notification)
            var row = Row(
                n: n, c: c, id: entry.id, origin: entry.origin.rawValue, statistics_event: entry.statisticsEvent?.rawValue, silent: entry.silent,
                badge: entry.badge, attempts: entry.attempts, max_attempts: entry.maxAttempts, due_at: entry.dueAt,
                published_at: entry.publishedAt, last_reason: entry.lastReason, publish_id: entry.receiptID)
            switch entry.recipient {
            case .subscriber(let id): row.subscriber_id = id.rawValue
            case .token(let proto, let token): (row.proto, row.token) = (proto, token)
            }
            rows.append(row)
        }
    }
}
