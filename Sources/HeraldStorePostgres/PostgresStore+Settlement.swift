import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// One transaction for the whole settlement, each part one statement over bound arrays or a
    /// JSON document: the records (see ``applyRecords(_:maxFailures:now:on:logger:)``), feedback,
    /// token replacements, new retries, rescheduled and finished retries, and the jobs'
    /// checkpoints and completions, each only while the settling node still holds the job's lease.
    public func settle(_ settlement: Settlement, maxFailures: Int, now: Int64) async throws -> SettlementSummary {
        guard !settlement.isEmpty else { return SettlementSummary() }
        let retries = try QueuedDeliveryBatch(settlement.newRetries)
        let checkpoints = try JobCheckpointBatch(settlement.jobs)
        let logger = self.logger
        return try await withTransaction { connection in
            var summary = SettlementSummary()
            summary.unregistered = try await Self.applyRecords(
                settlement.records, maxFailures: maxFailures, now: now, on: connection, logger: logger)
            try await Self.insertFeedback(settlement.feedback, on: connection, logger: logger)
            for id in try await Self.applyReplacements(settlement.replacements, now: now, on: connection, logger: logger) {
                summary.unregistered.append((id, "CanonicalRegistrationID"))
            }
            if !retries.rows.isEmpty {
                try await Self.insertRetries(retries, on: connection, logger: logger)
            }
            if !settlement.rescheduledRetries.isEmpty {
                let ids = settlement.rescheduledRetries.map(\.id)
                let attempts = settlement.rescheduledRetries.map { Int64($0.attempts) }
                let due = settlement.rescheduledRetries.map(\.dueAt)
                let reasons = settlement.rescheduledRetries.map { $0.lastReason ?? "" }
                let reasonNull = settlement.rescheduledRetries.map { $0.lastReason == nil }
                try await connection.query("""
                    UPDATE retries AS r SET attempts = c.attempts, due_at = c.due_at,
                        last_reason = CASE WHEN c.reason_null THEN NULL ELSE c.reason END, lease_owner = NULL, lease_expires = NULL
                    FROM unnest(\(ids)::bigint[], \(attempts)::bigint[], \(due)::bigint[], \(reasons)::text[], \(reasonNull)::bool[])
                        AS c(id, attempts, due_at, reason, reason_null)
                    WHERE r.id = ANY(\(ids)::bigint[]) AND r.id = c.id
                    """, logger: logger)
            }
            // The publishes that may have ended: those whose last job completes or last retry ends here.
            var ending: Set<String> = []
            if !settlement.finishedRetries.isEmpty {
                for id in try await connection.query(
                    "DELETE FROM retries WHERE id = ANY(\(settlement.finishedRetries)::bigint[]) RETURNING publish_id", logger: logger
                ).map({ try $0.decode(String?.self) }) {
                    if let id { ending.insert(id) }
                }
            }
            if !settlement.jobs.isEmpty {
                let (lost, completed) = try await Self.applyCheckpoints(checkpoints, on: connection, logger: logger)
                summary.lostJobs = lost
                ending.formUnion(completed)
            }
            // Last, so that the receipt's row (shared by every node settling the same publish) stays
            // locked only until the commit.
            try await Self.applyReceipts(settlement.receipts, on: connection, logger: logger)
            try await Self.finishPublishes(Array(ending), on: connection, logger: logger)
            if !retries.rows.isEmpty { try await self.notify(.deliveries, on: connection) }
            return summary
        }
    }

    /// Checkpoints the unfinished jobs with one statement and deletes the complete ones with
    /// another, each only where `lease_owner` is still the settling node.
    /// - Returns: the jobs whose lease was lost, in the settlement's order, and the publishes of
    ///   the jobs completed.
    static func applyCheckpoints(
        _ batch: JobCheckpointBatch, on connection: PostgresConnection, logger: Logger
    ) async throws -> (lost: [Int64], completedPublishes: [String]) {
        var held = Set<Int64>()
        var completedPublishes: [String] = []
        if !batch.updates.isEmpty {
            let rows = try PostgresCodec.jsonRecords(batch.updates)
            for id in try await connection.query("""
                UPDATE publish_jobs AS j SET cursor = c.cursor, pending = c.pending, lease_expires = c.lease_expires
                FROM jsonb_to_recordset(\(rows)::jsonb) AS c(id bigint, owner text, cursor text, pending text, lease_expires bigint)
                WHERE j.id = c.id AND j.lease_owner = c.owner
                RETURNING j.id
                """, logger: logger).map({ try $0.decode(Int64.self) }) {
                held.insert(id)
            }
        }
        if !batch.completedIDs.isEmpty {
            for (id, publish) in try await connection.query("""
                DELETE FROM publish_jobs AS j USING unnest(\(batch.completedIDs)::bigint[], \(batch.completedOwners)::text[]) AS c(id, owner)
                WHERE j.id = c.id AND j.lease_owner = c.owner
                RETURNING j.id, j.publish_id
                """, logger: logger).map({ try $0.decode((Int64, String?).self) }) {
                held.insert(id)
                if let publish { completedPublishes.append(publish) }
            }
        }
        return (batch.order.filter { !held.contains($0) }, completedPublishes)
    }

    /// Renews every lease the owner holds, one statement per queue.
    public func renewLeases(owner: String, expiresAt: Int64) async throws {
        let logger = self.logger
        try await withTransaction { connection in
            try await connection.query("UPDATE publish_jobs SET lease_expires = \(expiresAt) WHERE lease_owner = \(owner)", logger: logger)
            try await connection.query("""
                UPDATE retries SET lease_expires = \(expiresAt) WHERE lease_expires IS NOT NULL AND lease_owner = \(owner)
                """, logger: logger)
        }
    }

    /// The audience's own statement shape, restricted to a list of ids.
    public func members(of job: PublishJob, among ids: [SubscriberID]) async throws -> [AudienceMember] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map(\.rawValue)
        let logger = self.logger
        let columns = PostgresCodec.subscriberColumns
        switch job.audience {
        case .subscribers(let event):
            return try await withConnection { connection in
                try await connection.query("""
                    SELECT \(unescaped: columns), sub.ignore_message
                    FROM subscriptions AS sub
                    JOIN subscribers AS s ON s.id = sub.subscriber_id
                    LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true
                    WHERE sub.event = \(event.rawValue) AND sub.subscriber_id = ANY(\(list)::text[])
                    ORDER BY sub.subscriber_id
                    """, logger: logger).map(PostgresCodec.member)
            }
        case .broadcast:
            return try await subscribers(ids).map { AudienceMember(subscriber: $0, silent: false) }
        case .unicast(let id), .test(let id):
            guard ids.contains(id) else { return [] }
            return try await subscribers([id]).map { AudienceMember(subscriber: $0, silent: false) }
        case .groups(let events, let proto):
            return try await withConnection { connection in
                try await Self.groupsMembers(events, proto: proto, among: list, on: connection, logger: logger)
            }
        }
    }

    /// One statement for the whole list, ascending by id.
    public func subscribers(_ ids: [SubscriberID]) async throws -> [Subscriber] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map(\.rawValue)
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query("""
                SELECT \(unescaped: PostgresCodec.subscriberColumns) FROM subscribers AS s LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true
                WHERE s.id = ANY(\(list)::text[]) ORDER BY s.id
                """, logger: logger).map(PostgresCodec.subscriber)
        }
    }
}
