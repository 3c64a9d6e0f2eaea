import HeraldCore
import HeraldStore
import PostgresNIO

/// A registration as one prepared statement (``PostgresStore/register(_:now:makeID:on:logger:)``).
///
/// It refreshes the subscriber with the registration's `(proto, identity)` (the common case:
/// every app launch), or, when there is none, inserts a new one with the drawn id; a given badge
/// is stored either way (a badge row exists only once there is a badge, see migration 6).
/// Prepared once per connection: the four parts of the statement are planned once, not on every
/// registration.
struct RegistrationStatement: PostgresPreparedStatement {
    /// `created`, then ``PostgresCodec/subscriberColumns`` (placeholders for a new subscriber, whose
    /// fields the caller knows).
    typealias Row = (Bool, PostgresCodec.SubscriberTuple)

    static let sql = """
        WITH refreshed AS (
            UPDATE subscribers SET
                token = $1,
                lang = coalesce($2, lang),
                version = coalesce($3, version),
                category = coalesce($4, category),
                content_available = coalesce($5, content_available),
                updated = $6,
                failures = 0
            WHERE proto = $7 AND identity = $8
            RETURNING *
        ), inserted AS (
            INSERT INTO subscribers (id, proto, token, identity, lang, version, category, content_available, created, updated, failures)
            SELECT $9, $7, $1, $8, $2, $3, $4, $5, $6, $6, 0
            WHERE NOT EXISTS (SELECT 1 FROM refreshed)
            ON CONFLICT DO NOTHING
            RETURNING id
        ), given_badge AS (
            INSERT INTO badges (subscriber_id, badge)
            SELECT id, $10 FROM (SELECT id FROM inserted UNION ALL SELECT id FROM refreshed) AS r WHERE $10 IS NOT NULL
            ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge
        )
        SELECT false, \(PostgresCodec.subscriberColumns)
        FROM refreshed AS s LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true
        UNION ALL
        SELECT true, id, '', '', NULL, NULL, NULL, NULL, NULL, 0, 0, 0 FROM inserted
        """

    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .text, .text, .int8, .text, .text, .text, .text]

    let registration: SubscriberRegistration
    var id: SubscriberID
    let now: Int64

    func makeBindings() throws -> PostgresBindings {
        let fields = registration.fields
        var bindings = PostgresBindings(capacity: 10)
        bindings.append(registration.token)
        bindings.append(fields.lang)
        bindings.append(fields.version)
        bindings.append(fields.category)
        bindings.append(fields.contentAvailable)
        bindings.append(now)
        bindings.append(registration.proto)
        bindings.append(registration.identity)
        bindings.append(id.rawValue)
        bindings.append(fields.badge)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let t = try row.decode((Bool, String, String, String, String?, String?, String?, String?, String?, Int64, Int64, Int32).self)
        return (t.0, (t.1, t.2, t.3, t.4, t.5, t.6, t.7, t.8, t.9, t.10, t.11))
    }
}
