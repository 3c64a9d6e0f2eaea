import Foundation
import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// The idempotency key, the schedule or the job, and the receipt, in one transaction. Two
    /// nodes taking the same key at once meet on its unique index: the loser's transaction fails
    /// and is answered as a repeat (or a conflict) on a second try.
    public func enqueue(_ publish: PublishRequest, now: Int64) async throws -> EnqueueResult {
        do {
            return try await enqueueOnce(publish, now: now)
        } catch let error as PostgresQueryError where error.sqlState == "23505" && publish.idempotency != nil {
            return try await enqueueOnce(publish, now: now)
        }
    }

    private func enqueueOnce(_ publish: PublishRequest, now: Int64) async throws -> EnqueueResult {
        let encoded = try PostgresCodec.encode(publish.content)
        let logger = self.logger
        if case .subscribers(let event) = publish.audience, publish.idempotency == nil, (publish.dueAt ?? now) <= now {
            // The event's announcement goes with the statement when it fits a notification's payload.
            var announcement: String?
            // The stored JSON of the event is its announcement's too: written once.
            if let json = encoded.notification {
                let message = WakeUpMessage.eventPayload(json: json, from: nodeID)
                if message.utf8.count <= WakeUpMessage.payloadLimit { announcement = message }
            }
            let statement = EventPublishStatement(
                event: event.rawValue, notification: encoded.notification, payload: encoded.payload, now: now,
                origin: publish.origin.rawValue, publishID: publish.id, receiptEvent: publish.event,
                channel: configuration.channel, jobsWakeUp: try WakeUpMessage.jobs.payload(from: nodeID), announcement: announcement)
            // Concurrent publishes on this node are committed together (``eventPublishCommit``).
            let jobID = try await eventPublishCommit.submit(statement) { batch in await self.commitEventPublishes(batch) }
            if jobID != nil { wakeUpHub.yield(.jobs) }
            if case .event(let published) = publish.content {
                if announcement != nil {
                    wakeUpHub.yield(.event(published))
                } else {
                    await announceAfterCommit(published)
                }
            }
            return jobID.map { .queued(jobID: $0) } ?? .noAudience
        }
        let key = publish.idempotency?.key
        let fingerprint = publish.idempotency?.fingerprint
        let result = try await withTransaction { connection -> EnqueueResult in
            if let claim = publish.idempotency {
                let rows = try await connection.query(
                    "SELECT id, fingerprint, created FROM publishes WHERE idempotency_key = \(claim.key)", logger: logger
                ).map { try $0.decode((String, String?, Int64).self) }
                if let (id, stored, created) = rows.first {
                    if created >= claim.since { return stored == claim.fingerprint ? .repeated(publishID: id) : .keyConflict }
                    // Expired: the key is free for this publish.
                    try await connection.query(
                        "UPDATE publishes SET idempotency_key = NULL, fingerprint = NULL WHERE idempotency_key = \(claim.key)", logger: logger)
                }
            }
            if let dueAt = publish.dueAt, dueAt > now {
                let (kind, value) = try Self.storedAudience(publish.audience)
                try await connection.query("""
                    INSERT INTO publishes (id, event, state, created, scheduled_at, idempotency_key, fingerprint,
                                           audience_kind, audience_value, origin, notification, payload)
                    VALUES (\(publish.id), \(publish.event), 'scheduled', \(now), \(dueAt), \(key), \(fingerprint),
                            \(kind), \(value), \(publish.origin.rawValue), \(encoded.notification), \(encoded.payload))
                    """, logger: logger)
                return .scheduled
            }
            let result = try await self.enqueueJob(
                publish.audience, content: publish.content, encoded: encoded, origin: publish.origin, now: now, on: connection, logger: logger)
            switch result {
            case .queued:
                let audience = try await Self.audienceEstimate(publish.audience, on: connection, logger: logger)
                try await connection.query("""
                    INSERT INTO publishes (id, event, state, audience, created, idempotency_key, fingerprint)
                    VALUES (\(publish.id), \(publish.event), 'fanning_out', \(audience), \(now), \(key), \(fingerprint))
                    """, logger: logger)
            case .noAudience:
                try await connection.query("""
                    INSERT INTO publishes (id, event, state, audience, created, started, finished, idempotency_key, fingerprint)
                    VALUES (\(publish.id), \(publish.event), 'done', 0, \(now), \(now), \(now), \(key), \(fingerprint))
                    """, logger: logger)
            default:
                break
            }
            return result
        }
        if case .queued = result { wakeUpHub.yield(.jobs) }
        switch (result, publish.content) {
        case (.queued, .event(let event)), (.noAudience, .event(let event)): await announceAfterCommit(event)
        default: break
        }
        return result
    }

    /// Announces a committed publish's event; a failure costs listeners that event, not the publish.
    private func announceAfterCommit(_ event: PublishedEvent) async {
        do {
            try await announce(event)
        } catch {
            logger.warning("cannot announce an event to its listeners", metadata: ["error": "\(error)", "event": "\(event.event)"])
        }
    }

    /// The audience's size when it is accepted: the event's subscriptions, the registered
    /// subscribers for broadcast, one for a unicast; for groups the sum of their events'
    /// subscriptions. PostgreSQL keeps no running counts, so this counts (an index-only scan): a
    /// publish with an audience is about to read all of it anyway.
    static func audienceEstimate(_ audience: PublishAudience, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows: [Int64]
        switch audience {
        case .subscribers(let event):
            rows = try await connection.query("SELECT count(*) FROM subscriptions WHERE event = \(event.rawValue)", logger: logger)
                .map { try $0.decode(Int64.self) }
        case .broadcast:
            rows = try await connection.query("SELECT count(*) FROM subscribers", logger: logger).map { try $0.decode(Int64.self) }
        case .unicast, .test:
            return 1
        case .groups(let events, _):
            rows = try await connection.query(
                "SELECT count(*) FROM subscriptions WHERE event = ANY(\(events.map(\.rawValue))::text[])", logger: logger
            ).map { try $0.decode(Int64.self) }
        }
        return rows.first ?? 0
    }

    /// One row with its failures and the retries counted from the queue, in one statement.
    public func receipt(of id: String) async throws -> PublishStatus? {
        let logger = self.logger
        typealias Columns = (String, String, String, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64?, Int64?, Int64?, Int64, String?)
        let rows = try await withConnection { connection in
            try await connection.query("""
                SELECT id, event, state, audience, reached, delivered, failed, skipped, dead_lettered, created, scheduled_at, started,
                       finished, (SELECT count(*) FROM retries WHERE publish_id = p.id),
                       (SELECT jsonb_object_agg(reason, count)::text FROM publish_failures WHERE publish_id = p.id)
                FROM publishes AS p WHERE id = \(id)
                """, logger: logger).map { try $0.decode(Columns.self) }
        }
        guard let row = rows.first else { return nil }
        guard let state = PublishState(rawValue: row.2) else { throw StoreError.corruptRow("publishes \(id): state \(row.2)") }
        let failures = try row.14.map { try JSONDecoder().decode([String: Int64].self, from: Data($0.utf8)) } ?? [:]
        return PublishStatus(
            id: row.0, event: row.1, state: state, audience: row.3, reached: row.4, delivered: row.5, failed: row.6, skipped: row.7,
            retrying: row.13, deadLettered: row.8, failures: failures, created: row.9, scheduledAt: row.10, started: row.11, finished: row.12)
    }

    /// A conditional update: only a scheduled row changes.
    public func cancelPublish(_ id: String, now: Int64) async throws -> CancelResult {
        let logger = self.logger
        return try await withConnection { connection in
            let cancelled = try await connection.query("""
                UPDATE publishes SET state = 'cancelled', finished = \(now), notification = NULL, payload = NULL
                WHERE id = \(id) AND state = 'scheduled' RETURNING 1
                """, logger: logger).collect()
            if !cancelled.isEmpty { return .cancelled }
            let states = try await connection.query("SELECT state FROM publishes WHERE id = \(id)", logger: logger).map { try $0.decode(String.self) }
            guard let state = states.first else { return .unknown }
            return .notScheduled(PublishState(rawValue: state) ?? .done)
        }
    }

    /// Due rows are taken with `FOR UPDATE SKIP LOCKED`, so nodes releasing at once never release
    /// one twice; each becomes a job as ``enqueue(_:content:origin:now:)`` makes one.
    public func releaseScheduledPublishes(now: Int64, limit: Int) async throws -> [DeliveryContent] {
        let logger = self.logger
        let (released, queued) = try await withTransaction { connection -> ([DeliveryContent], Bool) in
            typealias Columns = (String, String, String?, String?, String, String?)
            let rows = try await connection.query("""
                SELECT id, audience_kind, audience_value, notification, origin, payload
                FROM publishes WHERE state = 'scheduled' AND scheduled_at <= \(now)
                ORDER BY scheduled_at LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
                """, logger: logger).map { try $0.decode(Columns.self) }
            var released: [DeliveryContent] = []
            var anyQueued = false
            for (id, kind, value, notification, origin, payload) in rows {
                let job = try Self.job((0, kind, value, notification, now, nil, nil, origin, payload, nil))
                let encoded = (notification: notification, payload: payload)
                let result = try await self.enqueueJob(
                    job.audience, content: job.content, encoded: encoded, origin: job.origin, now: now, on: connection, logger: logger)
                if case .queued = result {
                    anyQueued = true
                    let audience = try await Self.audienceEstimate(job.audience, on: connection, logger: logger)
                    try await connection.query("""
                        UPDATE publishes SET state = 'fanning_out', audience = \(audience), notification = NULL, payload = NULL WHERE id = \(id)
                        """, logger: logger)
                } else {
                    try await connection.query("""
                        UPDATE publishes SET state = 'done', started = \(now), finished = \(now), notification = NULL, payload = NULL
                        WHERE id = \(id)
                        """, logger: logger)
                }
                released.append(job.content)
            }
            return (released, anyQueued)
        }
        if queued { wakeUpHub.yield(.jobs) }
        return released
    }

    /// Four statements in one transaction, each over its own index.
    public func pruneReceipts(finishedBefore: Int64, keysBefore: Int64, now: Int64) async throws {
        let logger = self.logger
        try await withTransaction { connection in
            try await connection.query("""
                DELETE FROM publish_failures WHERE publish_id IN (SELECT id FROM publishes WHERE finished IS NOT NULL AND finished < \(finishedBefore))
                """, logger: logger)
            try await connection.query("DELETE FROM publishes WHERE finished IS NOT NULL AND finished < \(finishedBefore)", logger: logger)
            try await connection.query("""
                UPDATE publishes SET idempotency_key = NULL, fingerprint = NULL WHERE idempotency_key IS NOT NULL AND created < \(keysBefore)
                """, logger: logger)
            try await connection.query("""
                UPDATE publishes AS p SET state = 'done', finished = \(now), audience = reached
                WHERE state = 'fanning_out'
                  AND NOT EXISTS (SELECT 1 FROM publish_jobs WHERE publish_id = p.id)
                  AND NOT EXISTS (SELECT 1 FROM retries WHERE publish_id = p.id)
                """, logger: logger)
        }
    }

    /// Marks `done` those of the publishes that fan out no more: no job and no retry of theirs is
    /// left. `finished` is the database's time, as every node's clock is.
    static func finishPublishes(_ ids: [String], on connection: PostgresConnection, logger: Logger) async throws {
        guard !ids.isEmpty else { return }
        try await connection.query("""
            UPDATE publishes AS p SET state = 'done', finished = floor(extract(epoch FROM clock_timestamp()))::bigint, audience = reached
            WHERE id = ANY(\(ids)::text[]) AND state = 'fanning_out'
              AND NOT EXISTS (SELECT 1 FROM publish_jobs WHERE publish_id = p.id)
              AND NOT EXISTS (SELECT 1 FROM retries WHERE publish_id = p.id)
            """, logger: logger)
    }

    /// Adds a settlement's progress to its receipts: one statement for the counters, one for the
    /// failure reasons.
    static func applyReceipts(_ receipts: [String: ReceiptProgress], on connection: PostgresConnection, logger: Logger) async throws {
        guard !receipts.isEmpty else { return }
        var ids: [String] = []
        var reached: [Int64] = [], delivered: [Int64] = [], failed: [Int64] = [], skipped: [Int64] = [], deadLettered: [Int64] = []
        var failureIDs: [String] = [], reasons: [String] = [], counts: [Int64] = []
        for (id, progress) in receipts {
            ids.append(id)
            reached.append(Int64(progress.reached))
            delivered.append(Int64(progress.delivered))
            failed.append(Int64(progress.failed))
            skipped.append(Int64(progress.skipped))
            deadLettered.append(Int64(progress.deadLettered))
            for (reason, count) in progress.failures {
                failureIDs.append(id)
                reasons.append(reason)
                counts.append(Int64(count))
            }
        }
        try await connection.query("""
            UPDATE publishes AS p SET reached = p.reached + d.reached, delivered = p.delivered + d.delivered, failed = p.failed + d.failed,
                skipped = p.skipped + d.skipped, dead_lettered = p.dead_lettered + d.dead_lettered
            FROM unnest(\(ids)::text[], \(reached)::bigint[], \(delivered)::bigint[], \(failed)::bigint[], \(skipped)::bigint[],
                        \(deadLettered)::bigint[]) AS d(id, reached, delivered, failed, skipped, dead_lettered)
            WHERE p.id = d.id
            """, logger: logger)
        guard !failureIDs.isEmpty else { return }
        try await connection.query("""
            INSERT INTO publish_failures (publish_id, reason, count)
            SELECT f.id, f.reason, f.count FROM unnest(\(failureIDs)::text[], \(reasons)::text[], \(counts)::bigint[]) AS f(id, reason, count)
            WHERE EXISTS (SELECT 1 FROM publishes WHERE id = f.id)
            ON CONFLICT (publish_id, reason) DO UPDATE SET count = publish_failures.count + excluded.count
            """, logger: logger)
    }
}

extension PostgresStore {
    /// One statement for the receipts over a `jsonb_to_recordset` document, one for their
    /// failures, in one transaction; rows already stored are left alone.
    public func importPublishes(_ records: [PublishRecord]) async throws -> Int {
        guard !records.isEmpty else { return 0 }
        struct Row: Encodable {
            var id, event, state: String
            var audience, reached, delivered, failed, skipped, dead_lettered, created: Int64
            var scheduled_at, started, finished: Int64?
            var idempotency_key, fingerprint, audience_kind, audience_value, origin, notification, payload: String?
        }
        struct Failure: Encodable {
            var id, reason: String
            var count: Int64
        }
        var rows: [Row] = []
        var failures: [Failure] = []
        for record in records {
            let status = record.status
            var row = Row(
                id: status.id, event: status.event, state: status.state.rawValue, audience: status.audience, reached: status.reached,
                delivered: status.delivered, failed: status.failed, skipped: status.skipped, dead_lettered: status.deadLettered,
                created: status.created, scheduled_at: status.scheduledAt, started: status.started, finished: status.finished,
                idempotency_key: record.idempotency?.key, fingerprint: record.idempotency?.fingerprint)
            if let scheduled = record.scheduled {
                (row.audience_kind, row.audience_value) = try Self.storedAudience(scheduled.audience)
                row.origin = scheduled.origin.rawValue
                (row.notification, row.payload) = try PostgresCodec.encode(scheduled.content)
            }
            rows.append(row)
            failures += status.failures.map { Failure(id: status.id, reason: $0.key, count: $0.value) }
        }
        let document = try PostgresCodec.jsonRecords(rows)
        let failureDocument = try PostgresCodec.jsonRecords(failures)
        let hasFailures = !failures.isEmpty
        let logger = self.logger
        return try await withTransaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO publishes (id, event, state, audience, reached, delivered, failed, skipped, dead_lettered, created, scheduled_at,
                                       started, finished, idempotency_key, fingerprint, audience_kind, audience_value, origin, notification,
                                       payload)
                SELECT id, event, state, audience, reached, delivered, failed, skipped, dead_lettered, created, scheduled_at, started,
                       finished, idempotency_key, fingerprint, audience_kind, audience_value, origin, notification, payload
                FROM jsonb_to_recordset(\(document)::jsonb) AS r(
                    id text, event text, state text, audience bigint, reached bigint, delivered bigint, failed bigint, skipped bigint,
                    dead_lettered bigint, created bigint, scheduled_at bigint, started bigint, finished bigint, idempotency_key text,
                    fingerprint text, audience_kind text, audience_value text, origin text, notification text, payload text)
                ON CONFLICT (id) DO NOTHING
                RETURNING 1
                """, logger: logger).collect().count
            if hasFailures {
                try await connection.query("""
                    INSERT INTO publish_failures (publish_id, reason, count)
                    SELECT id, reason, count FROM jsonb_to_recordset(\(failureDocument)::jsonb) AS f(id text, reason text, count bigint)
                    ON CONFLICT (publish_id, reason) DO NOTHING
                    """, logger: logger)
            }
            return inserted
        }
    }
}

extension PostgresStore {
    /// Commits a batch of publishes gathered by ``eventPublishCommit``: one statement
    /// (``EventPublishBatchStatement``), or the publish's own when it is alone. When the server
    /// refuses the batch's statement nothing of it was written, and each runs alone, so that only a
    /// publish at fault fails; when the connection fails, the batch fails.
    func commitEventPublishes(_ batch: [EventPublishStatement]) async -> [Result<Int64?, any Error>] {
        let logger = self.logger
        if batch.count > 1 {
            switch await executeBatch(EventPublishBatchStatement(publishes: batch)) {
            case .committed(let rows):
                var jobIDs = [Int64?](repeating: nil, count: batch.count)
                for (ord, jobID) in rows { jobIDs[Int(ord) - 1] = jobID }
                return jobIDs.map { .success($0) }
            case .refused:
                break
            case .failed(let error):
                return Array(repeating: .failure(error), count: batch.count)
            }
        }
        // Each alone, one statement each: a refused one fails alone; once the connection fails,
        // those committed before keep their answers and the rest fail.
        do {
            return try await withConnection { connection in
                var answers: [Result<Int64?, any Error>] = []
                for statement in batch {
                    do {
                        var jobID: Int64?
                        for try await row in try await connection.execute(statement, logger: logger) { jobID = row }
                        answers.append(.success(jobID))
                    } catch let error as PSQLError where error.code == .server {
                        answers.append(.failure(Self.storeError(error)))
                    } catch {
                        let failure = Self.storeError(error)
                        while answers.count < batch.count { answers.append(.failure(failure)) }
                        break
                    }
                }
                return answers
            }
        } catch {
            return Array(repeating: .failure(error), count: batch.count)
        }
    }
}
