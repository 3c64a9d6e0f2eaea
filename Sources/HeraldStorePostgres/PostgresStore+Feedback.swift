import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Applies a page of outcomes in one transaction with a fixed number of statements, whatever
    /// its size (see ``applyRecords(_:maxFailures:now:on:logger:)``).
    public func record(_ records: [DeliveryRecord], maxFailures: Int, now: Int64) async throws -> RecordSummary {
        guard !records.isEmpty else { return RecordSummary() }
        let logger = self.logger
        return try await withTransaction { connection in
            RecordSummary(unregistered: try await Self.applyRecords(records, maxFailures: maxFailures, now: now, on: connection, logger: logger))
        }
    }

    /// Inserts the entries with their own ids ignored.
    public func appendFeedback(_ entries: [FeedbackEntry]) async throws {
        guard !entries.isEmpty else { return }
        let logger = self.logger
        try await withConnection { connection in
            try await Self.insertFeedback(entries, on: connection, logger: logger)
        }
    }

    /// Deletes by the time index.
    public func pruneFeedback(before time: Int64) async throws -> Int {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("DELETE FROM feedback WHERE time < \(time) RETURNING 1", logger: logger).collect().count
        }
    }

    /// The columns ``feedbackEntry(_:)`` reads, in its order.
    static let feedbackColumns = "id, time, subscriber_id, proto, token, status, reason, action, replacement, origin, reference, invalid_since"

    /// Reads forward from the cursor by primary key; with `since`, the scan starts at the smallest
    /// id whose time qualifies (found on the time index), so polling recent entries does not walk
    /// the log from its start.
    public func deadTokens(proto: String, among tokens: [String], since: Int64) async throws -> Set<String> {
        guard !tokens.isEmpty else { return [] }
        let logger = self.logger
        return try await withConnection { connection in
            var found: Set<String> = []
            for try await token in try await connection.query("""
                SELECT DISTINCT token FROM feedback
                WHERE action = 'invalid' AND proto = \(proto) AND time >= \(since) AND token = ANY(\(tokens)::text[])
                """, logger: logger).decode(String.self)
            {
                found.insert(token)
            }
            return found
        }
    }

    public func feedback(matching filter: FeedbackFilter, after cursor: Int64?, since: Int64?, limit: Int) async throws -> [FeedbackEntry] {
        guard limit > 0 else { return [] }
        let logger = self.logger
        let origin = filter.origin?.rawValue
        let proto = filter.proto
        let cursor = cursor ?? Int64.min
        return try await withConnection { connection in
            try await connection.query("""
                SELECT \(unescaped: Self.feedbackColumns) FROM feedback
                WHERE id > \(cursor)
                  AND (\(since)::bigint IS NULL OR (time >= \(since) AND id >= (SELECT min(id) FROM feedback WHERE time >= \(since))))
                  AND (\(origin)::text IS NULL OR origin = \(origin))
                  AND (\(proto)::text IS NULL OR proto = \(proto))
                ORDER BY id LIMIT \(limit)
                """, logger: logger).map(Self.feedbackEntry)
        }
    }

    /// Marks up to `limit` untaken entries of `origin` taken and returns them; entries another node
    /// is taking at this instant are skipped, so each entry is handed out once.
    public func takeFeedback(origin: DeliveryOrigin, actions: Set<FeedbackEntry.Action>, limit: Int) async throws -> [FeedbackEntry] {
        guard limit > 0, !actions.isEmpty else { return [] }
        let list = actions.map(\.rawValue).sorted()
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("""
                UPDATE feedback AS f SET taken = true
                FROM (
                    SELECT id FROM feedback
                    WHERE origin = \(origin.rawValue) AND NOT taken AND action = ANY(\(list)::text[])
                    ORDER BY id LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                ) AS t
                WHERE f.id = t.id
                RETURNING \(unescaped: Self.feedbackColumns.split(separator: ",").map { "f." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
                """, logger: logger).map(Self.feedbackEntry).sorted { $0.id < $1.id }
        }
    }

    /// Reads a row selected as ``feedbackColumns``.
    static func feedbackEntry(_ row: PostgresRow) throws -> FeedbackEntry {
        let (id, time, subscriberID, proto, token, status, reason, action, replacement, origin, reference, invalidSince) =
            try row.decode((Int64, Int64, String?, String, String, Int32?, String, String, String?, String, String?, Int64?).self)
        guard let parsed = FeedbackEntry.Action(rawValue: action) else {
            throw StoreError.corruptRow("feedback \(id): unknown action \(action)")
        }
        return FeedbackEntry(
            id: id, time: time, subscriberID: subscriberID.map(SubscriberID.init(rawValue:)), origin: DeliveryOrigin(rawValue: origin),
            proto: proto, token: token, status: status.map(Int.init), reason: reason, action: parsed, replacement: replacement,
            reference: reference, invalidSince: invalidSince)
    }

    /// Inserts feedback entries with one statement, in their order.
    static func insertFeedback(_ entries: [FeedbackEntry], on connection: PostgresConnection, logger: Logger) async throws {
        guard !entries.isEmpty else { return }
        let rows = try PostgresCodec.jsonRecords(FeedbackBatch(entries).rows)
        try await connection.query("""
            INSERT INTO feedback (time, subscriber_id, proto, token, status, reason, action, replacement, origin, reference, invalid_since)
            SELECT time, subscriber_id, proto, token, status, reason, action, replacement, origin, reference, invalid_since
            FROM jsonb_to_recordset(\(rows)::jsonb) AS r(
                n integer, time bigint, subscriber_id text, proto text, token text, status integer, reason text, action text,
                replacement text, origin text, reference text, invalid_since bigint)
            ORDER BY n
            """, logger: logger)
    }
}
