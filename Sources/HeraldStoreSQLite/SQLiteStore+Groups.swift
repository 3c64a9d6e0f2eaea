import Foundation
import GRDB
import HeraldCore
import HeraldStore

/// The `groups` audience: the distinct subscribers of one provider subscribed to any of several
/// events (Choominator's notifications, compat.md §5.3).
extension SQLiteStore {
    /// The audience kind stored in `publish_jobs.audience_kind`.
    static let groupsKind = "groups"

    /// `publish_jobs.audience_value` of a `groups` audience: a JSON array, the provider first,
    /// then the event names (which cannot contain what JSON escapes, but a provider name might).
    static func groupsValue(_ events: [EventName], proto: String) throws -> String {
        try SQLiteCodec.jsonArray([proto] + events.map(\.rawValue))
    }

    /// Reads back ``groupsValue(_:proto:)``.
    static func groupsAudience(_ value: String, jobID: Int64) throws -> PublishAudience {
        guard let strings = try? JSONDecoder().decode([String].self, from: Data(value.utf8)), let proto = strings.first else {
            throw StoreError.corruptRow("publish_jobs \(jobID): unreadable groups audience")
        }
        var events: [EventName] = []
        for name in strings.dropFirst() { events.append(try SQLiteCodec.eventName(name, table: "publish_jobs")) }
        return .groups(events, proto: proto)
    }

    /// Whether any subscriber of `proto` is subscribed to one of `events` (given as a JSON array).
    static func groupsHaveAudience(_ eventList: String, proto: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: """
                SELECT EXISTS (
                    SELECT 1 FROM json_each(?) AS g
                    CROSS JOIN subscriptions AS sub ON sub.event = g.value
                    CROSS JOIN subscribers AS s ON s.id = sub.subscriber_id
                    WHERE s.proto = ?)
                """),
            arguments: [eventList, proto]) == true
    }

    /// Counts one publish in the statistics of each listed event that exists.
    static func countGroupsPublish(_ eventList: String, now: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE events SET total = total + 1, last = ? WHERE name IN (SELECT value FROM json_each(?))")
            .execute(arguments: [now, eventList])
    }

    /// One keyset page of a `groups` audience: the next `limit` distinct members of `proto` after
    /// `cursor`, ascending by id.
    ///
    /// A statement over the union of the events would read every subscription after the cursor
    /// for each page (quadratic over a large group). Instead each event's index range yields at
    /// most `limit` ids after the cursor; the `limit` smallest of their union are exactly the next
    /// `limit` distinct subscribers of any event (a smaller id missing from an event's answer would
    /// have `limit` smaller ones before it). Those of another provider are dropped, and the walk
    /// goes on from the last candidate until the page is full or every range is exhausted.
    static func groupsPage(
        _ events: [EventName], proto: String, after cursor: SubscriberID?, limit: Int, in db: Database
    ) throws -> [AudienceMember] {
        let names = Array(Set(events.map(\.rawValue)))
        let first = try db.cachedStatement(sql: "SELECT subscriber_id FROM subscriptions WHERE event = ? ORDER BY subscriber_id LIMIT ?")
        let next = try db.cachedStatement(sql: """
            SELECT subscriber_id FROM subscriptions WHERE event = ? AND subscriber_id > ? ORDER BY subscriber_id LIMIT ?
            """)
        let lookUp = try db.cachedStatement(sql: """
            SELECT \(SQLiteCodec.subscriberColumns("s")) FROM subscribers AS s
            WHERE s.id IN (SELECT value FROM json_each(?)) AND s.proto = ?
            ORDER BY s.id
            """)
        var members: [AudienceMember] = []
        var after = cursor?.rawValue
        while members.count < limit {
            var candidates = Set<String>()
            for name in names {
                let ids = try String.fetchAll(
                    after == nil ? first : next, arguments: after.map { [name, $0, limit] } ?? [name, limit])
                candidates.formUnion(ids)
            }
            let batch = candidates.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.prefix(limit)
            guard let last = batch.last else { break }
            let rows = try Row.fetchCursor(lookUp, arguments: [try SQLiteCodec.jsonArray(batch), proto])
            while let row = try rows.next(), members.count < limit {
                members.append(AudienceMember(subscriber: SQLiteCodec.subscriber(row), silent: false))
            }
            // Fewer candidates than asked for: every event's range is exhausted.
            if batch.count < limit { break }
            after = last
        }
        return members
    }

    /// The members of a `groups` audience among `ids` (a JSON array), ascending by id.
    static func groupsMembers(_ events: [EventName], proto: String, among ids: String, in db: Database) throws -> [AudienceMember] {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT \(SQLiteCodec.subscriberColumns("s")) FROM subscribers AS s
                WHERE s.id IN (SELECT value FROM json_each(?)) AND s.proto = ?
                AND EXISTS (
                    SELECT 1 FROM subscriptions AS sub
                    WHERE sub.subscriber_id = s.id AND sub.event IN (SELECT value FROM json_each(?)))
                ORDER BY s.id
                """),
            arguments: [ids, proto, try SQLiteCodec.jsonArray(events.map(\.rawValue))])
        return rows.map { AudienceMember(subscriber: SQLiteCodec.subscriber($0), silent: false) }
    }
}
