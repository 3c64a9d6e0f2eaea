import Foundation
import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

/// The `groups` audience: the distinct subscribers of one provider subscribed to any of several
/// events (Choominator's notifications, compat.md §5.3).
extension PostgresStore {
    /// The audience kind stored in `publish_jobs.audience_kind`.
    static let groupsKind = "groups"

    /// `publish_jobs.audience_value` of a `groups` audience: a JSON array, the provider first,
    /// then the event names (as SQLite stores it).
    static func groupsValue(_ events: [EventName], proto: String) throws -> String {
        String(decoding: try JSONEncoder().encode([proto] + events.map(\.rawValue)), as: UTF8.self)
    }

    /// Reads back ``groupsValue(_:proto:)``.
    static func groupsAudience(_ value: String, jobID: Int64) throws -> PublishAudience {
        guard let strings = try? JSONDecoder().decode([String].self, from: Data(value.utf8)), let proto = strings.first else {
            throw StoreError.corruptRow("publish_jobs \(jobID): unreadable groups audience")
        }
        return .groups(try strings.dropFirst().map { try PostgresCodec.eventName($0, table: "publish_jobs") }, proto: proto)
    }

    /// Whether any subscriber of `proto` is subscribed to one of `events`.
    static func groupsHaveAudience(_ events: [String], proto: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await !connection.query("""
            SELECT 1 FROM subscriptions AS sub JOIN subscribers AS s ON s.id = sub.subscriber_id
            WHERE sub.event = ANY(\(events)::text[]) AND s.proto = \(proto) LIMIT 1
            """, logger: logger).collect().isEmpty
    }

    /// One keyset page of a `groups` audience in one statement: each event's index range yields
    /// its next `limit` members of `proto` after the cursor (a `LATERAL` subquery per event), and
    /// the `limit` smallest of their union are exactly the next `limit` distinct members of any
    /// event. Each page reads at most `limit` rows per event, however large the groups.
    static func groupsPage(
        _ events: [EventName], proto: String, after cursor: SubscriberID?, limit: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [AudienceMember] {
        let names = Array(Set(events.map(\.rawValue)))
        let after = cursor?.rawValue ?? ""
        return try await connection.query("""
            SELECT \(unescaped: PostgresCodec.subscriberColumns)
            FROM (
                SELECT DISTINCT candidate.id FROM unnest(\(names)::text[]) AS g(event)
                CROSS JOIN LATERAL (
                    SELECT sub.subscriber_id AS id FROM subscriptions AS sub JOIN subscribers AS m ON m.id = sub.subscriber_id
                    WHERE sub.event = g.event AND sub.subscriber_id > \(after) AND m.proto = \(proto)
                    ORDER BY sub.subscriber_id LIMIT \(limit)
                ) AS candidate
                ORDER BY candidate.id LIMIT \(limit)
            ) AS page
            JOIN subscribers AS s ON s.id = page.id AND s.id > \(after)
            LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true
            ORDER BY s.id
            """, logger: logger).map { AudienceMember(subscriber: try PostgresCodec.subscriber($0), silent: false) }
    }

    /// The members of a `groups` audience among `ids`, ascending by id.
    static func groupsMembers(
        _ events: [EventName], proto: String, among ids: [String], on connection: PostgresConnection, logger: Logger
    ) async throws -> [AudienceMember] {
        let names = events.map(\.rawValue)
        return try await connection.query("""
            SELECT \(unescaped: PostgresCodec.subscriberColumns) FROM subscribers AS s LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true
            WHERE s.id = ANY(\(ids)::text[]) AND s.proto = \(proto)
              AND EXISTS (SELECT 1 FROM subscriptions AS sub WHERE sub.subscriber_id = s.id AND sub.event = ANY(\(names)::text[]))
            ORDER BY s.id
            """, logger: logger).map { AudienceMember(subscriber: try PostgresCodec.subscriber($0), silent: false) }
    }
}
