import HeraldStore
import NIOCore
import PostgresNIO

extension PostgresStore {
    /// One upsert returning the stored row, so that two nodes subscribing the same topic at once
    /// cannot both create it, nor bind it to different keys: `COALESCE` keeps a key already bound.
    public func subscribeTopic(_ name: String, vapidKey: String?, now: Int64) async throws -> PushTopic {
        let logger = self.logger
        let rows = try await withConnection { connection in
            try await connection.query("""
                INSERT INTO push_topics (name, vapid_key, last_subscribed, created) VALUES (\(name), \(vapidKey), \(now), \(now))
                ON CONFLICT (name) DO UPDATE SET
                    vapid_key = COALESCE(push_topics.vapid_key, excluded.vapid_key),
                    last_subscribed = excluded.last_subscribed
                RETURNING \(unescaped: Self.pushTopicColumns)
                """, logger: logger).map { try $0.decode(PushTopicTuple.self) }
        }
        // An upsert always returns its row; none would be the server's bug, not a missing topic.
        guard let t = rows.first else { throw StoreError.corruptRow("push_topics \(name): the upsert returned no row") }
        return PushTopic(name: t.0, vapidKey: t.1, lastSubscribed: t.2, created: t.3)
    }

    /// One `UPDATE … = ANY` for the whole list; names no longer stored match nothing.
    public func touchTopics(_ names: [String], now: Int64) async throws {
        guard !names.isEmpty else { return }
        let logger = self.logger
        try await withConnection { connection in
            _ = try await connection.query(
                "UPDATE push_topics SET last_subscribed = \(now) WHERE name = ANY(\(names)::text[])", logger: logger
            ).collect()
        }
    }

    /// One row by primary key.
    public func pushTopic(_ name: String) async throws -> PushTopic? {
        let logger = self.logger
        let rows = try await withConnection { connection in
            try await connection.query("SELECT \(unescaped: Self.pushTopicColumns) FROM push_topics WHERE name = \(name)", logger: logger)
                .map { try $0.decode(PushTopicTuple.self) }
        }
        return rows.first.map { t in PushTopic(name: t.0, vapidKey: t.1, lastSubscribed: t.2, created: t.3) }
    }

    /// The replaced message's deletion and the insert in one transaction, under a lock every
    /// node's insert takes (``unifiedPushLockKey``), held until commit.
    ///
    /// The lock is why readers can resume by sequence: an identity value is drawn when the
    /// insert runs, not when it commits, so without it a message could become visible after one
    /// with a larger sequence, and a reader that had already read past that one would never see
    /// it. Under the lock, messages commit in sequence order. It also makes replacement hold
    /// between nodes: the `DELETE` runs after the lock (a new snapshot, at read committed), so it
    /// sees a message of the same key that another node committed while this one waited.
    public func storeMessage(_ message: PushMessage) async throws {
        let body = ByteBuffer(bytes: message.body)
        let logger = self.logger
        try await withTransaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.unifiedPushLockKey))", logger: logger)
            if let replaceKey = message.replaceKey {
                // Unexpired when the new message was accepted; an expired one is left to pruning.
                try await connection.query("""
                    DELETE FROM push_messages
                    WHERE topic = \(message.topic) AND replace_key = \(replaceKey) AND expires_at > \(message.time)
                    """, logger: logger)
            }
            try await connection.query("""
                INSERT INTO push_messages (id, topic, time, expires_at, body, urgency, replace_key)
                VALUES (\(message.id), \(message.topic), \(message.time), \(message.expiresAt), \(body), \(message.urgency),
                        \(message.replaceKey))
                """, logger: logger)
        }
    }

    /// One statement shape for every cursor: an absent bound is one that holds for every row. The
    /// id of ``PushCursor/afterID(_:)`` is resolved by a subquery, so that an unknown id falls back
    /// to reading everything (`COALESCE` with 0) in the same snapshot.
    public func messages(of topics: [String], after cursor: PushCursor, now: Int64, limit: Int) async throws -> [PushMessage] {
        guard !topics.isEmpty, limit > 0 else { return [] }
        let bounds = cursor.bounds
        let logger = self.logger
        let rows = try await withConnection { connection in
            try await connection.query("""
                SELECT \(unescaped: Self.pushMessageColumns) FROM push_messages
                WHERE topic = ANY(\(topics)::text[]) AND expires_at > \(now) AND time >= \(bounds.since)
                  AND sequence > COALESCE((SELECT sequence FROM push_messages WHERE id = \(bounds.afterID)::text), \(bounds.afterSequence))
                ORDER BY sequence
                LIMIT \(limit)
                """, logger: logger).map { try $0.decode(PushMessageTuple.self) }
        }
        return rows.map { t in
            PushMessage(
                id: t.1, sequence: t.0, topic: t.2, time: t.3, expiresAt: t.4, body: Array(t.5.readableBytesView), urgency: t.6,
                replaceKey: t.7)
        }
    }

    /// Both deletions in one transaction: the topics' goes second, so that it sees the first's
    /// deletions and a topic whose last message has just expired goes in the same prune.
    public func pruneUnifiedPush(now: Int64, idleBefore: Int64) async throws -> Int {
        let logger = self.logger
        return try await withTransaction { connection in
            let deleted = try await connection.query("DELETE FROM push_messages WHERE expires_at <= \(now) RETURNING 1", logger: logger)
                .collect().count
            try await connection.query("""
                DELETE FROM push_topics AS t
                WHERE t.last_subscribed < \(idleBefore) AND NOT EXISTS (SELECT 1 FROM push_messages AS m WHERE m.topic = t.name)
                """, logger: logger)
            return deleted
        }
    }

    /// The key of the transaction-level advisory lock ``storeMessage(_:)`` holds: the migration
    /// lock's (``PostgresSchema/advisoryLockKey``) successor, so that the two never meet.
    static let unifiedPushLockKey: Int64 = 0x4865_7261_6C64_0002  // "Herald" + 2

    /// The columns ``PushTopicTuple`` holds, in its order.
    static let pushTopicColumns = "name, vapid_key, last_subscribed, created"

    /// The raw columns of ``pushTopicColumns``.
    typealias PushTopicTuple = (String, String?, Int64, Int64)

    /// The columns ``PushMessageTuple`` holds, in its order.
    static let pushMessageColumns = "sequence, id, topic, time, expires_at, body, urgency, replace_key"

    /// The raw columns of ``pushMessageColumns``; the body as a `ByteBuffer`, PostgresNIO's form of bytea.
    typealias PushMessageTuple = (Int64, String, String, Int64, Int64, ByteBuffer, String?, String?)
}
