import Foundation
import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// One write transaction for the whole settlement; the notifications of new retries are
    /// encoded before it starts, so the writer is held only for the statements.
    public func settle(_ settlement: Settlement, maxFailures: Int, now: Int64) async throws -> SettlementSummary {
        guard !settlement.isEmpty else { return SettlementSummary() }
        let retries = try Self.encodedRetries(settlement.newRetries)
        return try await pool.write { db in
            var summary = SettlementSummary()
            summary.unregistered = try Self.applyRecords(settlement.records, maxFailures: maxFailures, now: now, in: db)
            try Self.insertFeedback(settlement.feedback, in: db)
            for id in try Self.applyReplacements(settlement.replacements, now: now, in: db) {
                summary.unregistered.append((id, "CanonicalRegistrationID"))
            }
            try Self.insertRetries(retries, in: db)
            if !settlement.rescheduledRetries.isEmpty {
                let reschedule = try db.cachedStatement(sql: """
                    UPDATE retries SET attempts = ?, due_at = ?, last_reason = ?, lease_owner = NULL, lease_expires = NULL
                    WHERE id = ?
                    """)
                for retry in settlement.rescheduledRetries {
                    try reschedule.execute(arguments: [retry.attempts, retry.dueAt, retry.lastReason, retry.id])
                }
            }
            try Self.applyReceipts(settlement.receipts, in: db)
            // The publishes that may have ended: those whose last job completes or last retry ends here.
            var ending: Set<String> = []
            if !settlement.finishedRetries.isEmpty {
                let ids = try SQLiteCodec.jsonArray(settlement.finishedRetries.map(String.init))
                ending.formUnion(try String.fetchAll(
                    db.cachedStatement(sql: """
                        SELECT DISTINCT publish_id FROM retries WHERE id IN (SELECT value FROM json_each(?)) AND publish_id IS NOT NULL
                        """),
                    arguments: [ids]))
                try db.cachedStatement(sql: "DELETE FROM retries WHERE id IN (SELECT value FROM json_each(?))").execute(arguments: [ids])
            }
            let completed = settlement.jobs.filter(\.complete).map { String($0.jobID) }
            if !completed.isEmpty {
                ending.formUnion(try String.fetchAll(
                    db.cachedStatement(sql: """
                        SELECT DISTINCT publish_id FROM publish_jobs WHERE id IN (SELECT value FROM json_each(?)) AND publish_id IS NOT NULL
                        """),
                    arguments: [SQLiteCodec.jsonArray(completed)]))
            }
            let update = try db.cachedStatement(sql: """
                UPDATE publish_jobs SET cursor = ?, pending = ?, lease_expires = ? WHERE id = ? AND lease_owner = ?
                """)
            let delete = try db.cachedStatement(sql: "DELETE FROM publish_jobs WHERE id = ? AND lease_owner = ?")
            for job in settlement.jobs {
                if job.complete {
                    try delete.execute(arguments: [job.jobID, job.lease.owner])
                } else {
                    let pending = try SQLiteCodec.pendingText(job.pending)
                    try update.execute(arguments: [job.cursor?.rawValue, pending, job.lease.expiresAt, job.jobID, job.lease.owner])
                }
                if db.changesCount == 0 { summary.lostJobs.append(job.jobID) }
            }
            try Self.finishPublishes(ending, now: now, in: db)
            return summary
        }
    }

    /// Two statements, one per queue, each by the owner's rows only.
    public func renewLeases(owner: String, expiresAt: Int64) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: "UPDATE publish_jobs SET lease_expires = ? WHERE lease_owner = ?")
                .execute(arguments: [expiresAt, owner])
            try db.cachedStatement(sql: "UPDATE retries SET lease_expires = ? WHERE lease_expires IS NOT NULL AND lease_owner = ?")
                .execute(arguments: [expiresAt, owner])
        }
    }

    /// The audience's own statement shape, restricted to a list of ids.
    public func members(of job: PublishJob, among ids: [SubscriberID]) async throws -> [AudienceMember] {
        guard !ids.isEmpty else { return [] }
        let list = try SQLiteCodec.jsonArray(ids.lazy.map(\.rawValue))
        return try await pool.read { db in
            let columns = SQLiteCodec.subscriberColumns("s")
            switch job.audience {
            case .subscribers(let event):
                let rows = try Row.fetchAll(
                    db.cachedStatement(sql: """
                        SELECT \(columns), sub.ignore_message
                        FROM subscriptions AS sub CROSS JOIN subscribers AS s ON s.id = sub.subscriber_id
                        WHERE sub.event = ? AND sub.subscriber_id IN (SELECT value FROM json_each(?))
                        ORDER BY sub.subscriber_id
                        """),
                    arguments: [event.rawValue, list])
                return rows.map { AudienceMember(subscriber: SQLiteCodec.subscriber($0), silent: $0[SQLiteCodec.subscriberColumnCount]) }
            case .broadcast:
                let rows = try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT \(columns) FROM subscribers AS s WHERE s.id IN (SELECT value FROM json_each(?)) ORDER BY s.id"),
                    arguments: [list])
                return rows.map { AudienceMember(subscriber: SQLiteCodec.subscriber($0), silent: false) }
            case .unicast(let id), .test(let id):
                guard ids.contains(id) else { return [] }
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT \(columns) FROM subscribers AS s WHERE s.id = ?"), arguments: [id.rawValue])
                return row.map { [AudienceMember(subscriber: SQLiteCodec.subscriber($0), silent: false)] } ?? []
            case .groups(let events, let proto):
                return try Self.groupsMembers(events, proto: proto, among: list, in: db)
            }
        }
    }

    /// One statement for the whole list.
    public func subscribers(_ ids: [SubscriberID]) async throws -> [Subscriber] {
        guard !ids.isEmpty else { return [] }
        let list = try SQLiteCodec.jsonArray(ids.lazy.map(\.rawValue))
        return try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(SQLiteCodec.subscriberColumns()) FROM subscribers WHERE id IN (SELECT value FROM json_each(?))
                    """),
                arguments: [list]
            ).map { SQLiteCodec.subscriber($0) }
        }
    }
}
