import HeraldCore
import HeraldStore

/// The dead letters of a page of records, as one JSON document of rows and each distinct
/// content once in two parallel arrays the rows point into (1-based), for one `INSERT … SELECT`.
struct DeadLetterBatch: Sendable {
    struct Row: Encodable, Sendable {
        var n: Int
        var c: Int
        /// The letter's id: read only by ``PostgresStore/importDeadLetters(_:)``, which keeps ids.
        var id: Int64 = 0
        var time: Int64
        var subscriber_id: String?
        var origin: String
        var proto: String
        var token: String
        var event: String
        var statistics_event: String?
        var silent: Bool
        var badge: Int?
        var attempts: Int
        var published_at: Int64
        var status: Int?
        var reason: String
        var max_attempts: Int?
    }

    var rows: [Row] = []
    var contents = DistinctContents()

    /// Dead letters as another store kept them, with their ids.
    init(_ letters: [DeadLetter]) throws {
        for letter in letters {
            let content = letter.content
            let c = try contents.position(of: content.notification)
            rows.append(Row(
                n: rows.count, c: c, id: letter.id, time: letter.time, subscriber_id: letter.subscriberID?.rawValue,
                origin: letter.origin.rawValue, proto: letter.proto, token: letter.token, event: content.notification.eventName,
                statistics_event: letter.statisticsEvent?.rawValue, silent: content.silent, badge: content.badge,
                attempts: content.attempts, published_at: content.publishedAt, status: letter.status, reason: letter.reason,
                max_attempts: content.maxAttempts))
        }
    }

    /// The dead letters of the failure records that carry one.
    init(_ records: [DeliveryRecord], time: Int64) throws {
        for record in records {
            guard let (content, reason, status) = record.deadLetterFailure else { continue }
            let c = try contents.position(of: content.notification)
            rows.append(Row(
                n: rows.count, c: c, time: time, subscriber_id: record.subscriberID?.rawValue, origin: record.origin.rawValue,
                proto: record.proto, token: record.token, event: content.notification.eventName,
                statistics_event: record.statisticsEvent?.rawValue, silent: content.silent, badge: content.badge,
                attempts: content.attempts, published_at: content.publishedAt, status: status, reason: reason,
                max_attempts: content.maxAttempts))
        }
    }
}
