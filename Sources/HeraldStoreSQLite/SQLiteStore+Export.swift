import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore: StoreExport {
    /// One page of subscribers (with their badges) and the subscriptions of exactly that id range,
    /// read in one snapshot: two range reads, whatever the page's size.
    public func exportSubscribers(after cursor: SubscriberID?, limit: Int) async throws -> [ImportedSubscriber] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            var subscribers = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT s.id, s.proto, s.token, s.identity, s.lang, b.badge, s.version, s.category, s.content_available,
                           s.created, s.updated, s.failures
                    FROM subscribers AS s LEFT JOIN badges AS b ON b.subscriber_id = s.id
                    WHERE s.id > ? ORDER BY s.id LIMIT ?
                    """),
                arguments: [cursor?.rawValue ?? "", limit]
            ).map { row in
                ImportedSubscriber(
                    id: SubscriberID(rawValue: row[0]), proto: row[1], token: row[2], identity: row[3],
                    fields: SubscriberFields(lang: row[4], badge: row[5], version: row[6], category: row[7], contentAvailable: row[8]),
                    created: row[9], updated: row[10], failures: row[11])
            }
            guard let last = subscribers.last else { return [] }
            // The page's subscriptions in (subscriber, event) order: one range of the by-subscriber index.
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT subscriber_id, event, ignore_message FROM subscriptions INDEXED BY subscriptions_by_subscriber
                    WHERE subscriber_id > ? AND subscriber_id <= ? ORDER BY subscriber_id, event
                    """),
                arguments: [cursor?.rawValue ?? "", last.id.rawValue]
            )
            var index = 0
            for row in rows {
                let subscriberID: String = row[0]
                while index < subscribers.count, subscribers[index].id.rawValue != subscriberID { index += 1 }
                guard index < subscribers.count else { throw StoreError.corruptRow("subscriptions: \(subscriberID) out of order") }
                subscribers[index].subscriptions.append(
                    ImportedSubscription(event: try SQLiteCodec.eventName(row[1], table: "subscriptions"), ignoreMessage: row[2]))
            }
            return subscribers
        }
    }

    /// A range of the events table in name order.
    public func exportEventStatistics(after cursor: EventName?, limit: Int) async throws -> [ImportedEventStatistics] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT name, created, total, last, delivered, failed FROM events WHERE name > ? ORDER BY name LIMIT ?
                    """),
                arguments: [cursor?.rawValue ?? "", limit]
            ).map { row in
                ImportedEventStatistics(
                    event: try SQLiteCodec.eventName(row[0], table: "events"), created: row[1], total: row[2], last: row[3],
                    delivered: row[4], failed: row[5])
            }
        }
    }

    /// A range of `publish_jobs` by id, read as ``claimJobs(limit:lease:nowMillis:)`` reads a claim.
    public func exportPublishJobs(after cursor: Int64?, limit: Int) async throws -> [PublishJob] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT id, audience_kind, audience_value, notification, published_at, cursor, pending, origin, payload, end_id
                    FROM publish_jobs WHERE id > ? ORDER BY id LIMIT ?
                    """),
                arguments: [cursor ?? Int64.min, limit]
            ).map(Self.job)
        }
    }

    /// A range of `retries` by id, each distinct stored content decoded once.
    public func exportQueuedDeliveries(after cursor: Int64?, limit: Int) async throws -> [QueuedDelivery] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(Self.retryColumns) FROM retries WHERE id > ? ORDER BY id LIMIT ?"),
                arguments: [cursor ?? Int64.min, limit])
            var decoded: [ContentKey: DeliveryContent] = [:]
            return try rows.map { try Self.retry($0, decoded: &decoded) }
        }
    }

    /// A range of `feedback` by id, with the `taken` flag.
    public func exportFeedback(after cursor: Int64?, limit: Int) async throws -> [ImportedFeedback] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(Self.feedbackColumns), taken FROM feedback WHERE id > ? ORDER BY id LIMIT ?"),
                arguments: [cursor ?? Int64.min, limit]
            ).map { row in ImportedFeedback(entry: try Self.feedbackEntry(row), taken: row[12]) }
        }
    }
}
