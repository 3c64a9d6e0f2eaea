import HeraldCore
import HeraldStore
import PostgresNIO

/// Registrations of a group commit (``PostgresGroupCommit``) as one prepared statement: each one
/// as ``RegistrationStatement`` runs it alone (refresh the subscriber with its `(proto, identity)`,
/// else insert one with the drawn id, store a given badge), for the whole batch in one round trip
/// and one commit, the rows passed as `unnest` arrays.
///
/// An upsert on the `(proto, identity)` index rather than an `UPDATE … FROM` joined to the batch:
/// the upsert probes the index for each row whatever the planner thinks, where the join's plan,
/// made once for the prepared statement while the table was small, kept scanning the whole table
/// for every batch as it grew (a sequential scan per batch of 16, 100 µs a registration at
/// 30,000 subscribers). The caller keeps one registration per `(proto, identity)` in a batch (an
/// upsert cannot write a row twice) and runs the others alone.
struct RegistrationBatchStatement: PostgresPreparedStatement {
    /// The registration's position in the batch (from 1), `created`, then
    /// ``PostgresCodec/subscriberColumns`` (the badge of a new subscriber NULL: the caller knows it).
    typealias Row = (Int64, Bool, PostgresCodec.SubscriberTuple)

    static let sql = """
        WITH input AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int8[])
                WITH ORDINALITY AS i(proto, identity, token, lang, version, category, content_available, badge, id, now, ord)
        ), upserted AS (
            INSERT INTO subscribers AS s (id, proto, token, identity, lang, version, category, content_available, created, updated, failures)
            SELECT id, proto, token, identity, lang, version, category, content_available, now, now, 0 FROM input ORDER BY ord
            ON CONFLICT (proto, identity) DO UPDATE SET
                token = excluded.token,
                lang = coalesce(excluded.lang, s.lang),
                version = coalesce(excluded.version, s.version),
                category = coalesce(excluded.category, s.category),
                content_available = coalesce(excluded.content_available, s.content_available),
                updated = excluded.updated,
                failures = 0
            RETURNING s.*
        ), given_badge AS (
            INSERT INTO badges (subscriber_id, badge)
            SELECT u.id, i.badge FROM upserted AS u JOIN input AS i USING (proto, identity) WHERE i.badge IS NOT NULL
            ON CONFLICT (subscriber_id) DO UPDATE SET badge = excluded.badge
        )
        SELECT i.ord, u.id = i.id, u.id, u.proto, u.token, u.lang,
               CASE WHEN u.id = i.id THEN NULL ELSE (SELECT badge FROM badges WHERE badges.subscriber_id = u.id) END,
               u.version, u.category, u.content_available, u.created, u.updated, u.failures
        FROM upserted AS u JOIN input AS i USING (proto, identity)
        """

    static let bindingDataTypes: [PostgresDataType] = [
        .textArray, .textArray, .textArray, .textArray, .textArray, .textArray, .textArray, .textArray, .textArray, .int8Array,
    ]

    /// The registrations, each with its drawn id (distinct within the batch) and time.
    let registrations: [RegistrationStatement]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 10)
        bindings.append(registrations.map(\.registration.proto))
        bindings.append(registrations.map(\.registration.identity))
        bindings.append(registrations.map(\.registration.token))
        bindings.append(NullableTextArray(registrations.map(\.registration.fields.lang)))
        bindings.append(NullableTextArray(registrations.map(\.registration.fields.version)))
        bindings.append(NullableTextArray(registrations.map(\.registration.fields.category)))
        bindings.append(NullableTextArray(registrations.map(\.registration.fields.contentAvailable)))
        bindings.append(NullableTextArray(registrations.map(\.registration.fields.badge)))
        bindings.append(registrations.map(\.id.rawValue))
        bindings.append(registrations.map(\.now))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let t = try row.decode((Int64, Bool, String, String, String, String?, String?, String?, String?, String?, Int64, Int64, Int32).self)
        return (t.0, t.1, (t.2, t.3, t.4, t.5, t.6, t.7, t.8, t.9, t.10, t.11, t.12))
    }
}
