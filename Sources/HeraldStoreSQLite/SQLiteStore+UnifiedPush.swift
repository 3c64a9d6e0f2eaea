import Foundation
import GRDB
import HeraldStore

extension SQLiteStore {
    /// One upsert returning the stored row, so that creating, touching and binding cannot
    /// interleave with another subscription; `coalesce` keeps a key already bound.
    public func subscribeTopic(_ name: String, vapidKey: String?, now: Int64) async throws -> PushTopic {
        try await pool.write { db -> PushTopic in
            let row = try Row.fetchOne(
                db.cachedStatement(sql: """
                    INSERT INTO push_topics (name, vapid_key, last_subscribed, created) VALUES (?1, ?2, ?3, ?3)
                    ON CONFLICT (name) DO UPDATE SET
                        vapid_key = coalesce(push_topics.vapid_key, excluded.vapid_key),
                        last_subscribed = excluded.last_subscribed
                    RETURNING \(Self.pushTopicColumns)
                    """),
                arguments: [name, vapidKey, now])
            // An upsert always returns its row; none would be SQLite's bug, not a missing topic.
            guard let row else { throw StoreError.corruptRow("push_topics \(name): the upsert returned no row") }
            return Self.pushTopic(row)
        }
    }

    /// One `UPDATE … IN json_each` for the whole list; names no longer stored match nothing.
    public func touchTopics(_ names: [String], now: Int64) async throws {
        guard !names.isEmpty else { return }
        let list = try SQLiteCodec.jsonArray(names)
        try await pool.write { db in
            try db.cachedStatement(sql: "UPDATE push_topics SET last_subscribed = ? WHERE name IN (SELECT value FROM json_each(?))")
                .execute(arguments: [now, list])
        }
    }

    /// One row by primary key, on a reader.
    public func pushTopic(_ name: String) async throws -> PushTopic? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.pushTopicColumns) FROM push_topics WHERE name = ?"), arguments: [name])
                .map(Self.pushTopic)
        }
    }

    /// The replaced message's deletion and the insert in one write transaction, so that a reader
    /// sees either the old message or the new one, never both or neither. The sequence comes from
    /// AUTOINCREMENT; SQLite's one writer commits messages in its order.
    public func storeMessage(_ message: PushMessage) async throws {
        let body = Data(message.body)
        try await pool.write { db in
            if let replaceKey = message.replaceKey {
                // Unexpired when the new message was accepted; an expired one is left to pruning.
                try db.cachedStatement(sql: """
                    DELETE FROM push_messages WHERE topic = ? AND replace_key = ? AND expires_at > ?
                    """)
                    .execute(arguments: [message.topic, replaceKey, message.time])
            }
            // `coalesce`: GRDB binds an empty `Data` as NULL (its bytes have no address), and an
            // empty body is a body.
            try db.cachedStatement(sql: """
                INSERT INTO push_messages (id, topic, time, expires_at, body, urgency, replace_key)
                VALUES (?, ?, ?, ?, coalesce(?, X''), ?, ?)
                """)
                .execute(arguments: [
                    message.id, message.topic, message.time, message.expiresAt, body, message.urgency, message.replaceKey,
                ])
        }
    }

    /// One statement shape for every cursor, on a reader: an absent bound is one that holds for
    /// every row. The id of ``PushCursor/afterID(_:)`` is resolved by a subquery, so that an
    /// unknown id falls back to reading everything (`coalesce` with 0) in the same snapshot.
    public func messages(of topics: [String], after cursor: PushCursor, now: Int64, limit: Int) async throws -> [PushMessage] {
        guard !topics.isEmpty, limit > 0 else { return [] }
        let list = try SQLiteCodec.jsonArray(topics)
        let bounds = cursor.bounds
        return try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(Self.pushMessageColumns) FROM push_messages
                    WHERE topic IN (SELECT value FROM json_each(?1)) AND expires_at > ?2 AND time >= ?3
                      AND sequence > coalesce((SELECT sequence FROM push_messages WHERE id = ?4), ?5)
                    ORDER BY sequence
                    LIMIT ?6
                    """),
                arguments: [list, now, bounds.since, bounds.afterID, bounds.afterSequence, limit]
            ).map(Self.pushMessage)
        }
    }

    /// Both deletions in one write transaction: the topics' goes second, so that a topic whose
    /// last message has just expired goes in the same prune.
    public func pruneUnifiedPush(now: Int64, idleBefore: Int64) async throws -> Int {
        try await pool.write { db -> Int in
            try db.cachedStatement(sql: "DELETE FROM push_messages WHERE expires_at <= ?").execute(arguments: [now])
            let deleted = db.changesCount
            try db.cachedStatement(sql: """
                DELETE FROM push_topics
                WHERE last_subscribed < ? AND NOT EXISTS (SELECT 1 FROM push_messages WHERE topic = push_topics.name)
                """)
                .execute(arguments: [idleBefore])
            return deleted
        }
    }

    /// The columns ``pushTopic(_:)`` reads, in its order.
    static let pushTopicColumns = "name, vapid_key, last_subscribed, created"

    /// Reads a row selected as ``pushTopicColumns``.
    static func pushTopic(_ row: Row) -> PushTopic {
        let name: String = row[0]
        let vapidKey: String? = row[1]
        let lastSubscribed: Int64 = row[2]
        let created: Int64 = row[3]
        return PushTopic(name: name, vapidKey: vapidKey, lastSubscribed: lastSubscribed, created: created)
    }

    /// The columns ``pushMessage(_:)`` reads, in its order.
    static let pushMessageColumns = "sequence, id, topic, time, expires_at, body, urgency, replace_key"

    /// Reads a row selected as ``pushMessageColumns``.
    static func pushMessage(_ row: Row) -> PushMessage {
        let sequence: Int64 = row[0]
        let id: String = row[1]
        let topic: String = row[2]
        let time: Int64 = row[3]
        let expiresAt: Int64 = row[4]
        let body: Data = row[5]
        let urgency: String? = row[6]
        let replaceKey: String? = row[7]
        return PushMessage(
            id: id, sequence: sequence, topic: topic, time: time, expiresAt: expiresAt, body: [UInt8](body), urgency: urgency,
            replaceKey: replaceKey)
    }
}
