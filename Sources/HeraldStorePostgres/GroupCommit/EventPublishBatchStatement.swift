import PostgresNIO

/// Publishes to events of a group commit (``PostgresGroupCommit``) as one prepared statement:
/// each one exactly as ``EventPublishStatement`` runs it alone, for the whole batch in one round
/// trip and one commit, the rows passed as `unnest` arrays.
///
/// Each event's audience is counted once for the batch; the statistics get one row per event
/// (its count of publishes); the other nodes are woken once for all the jobs, and each event is
/// announced by a notification of its own, in the batch's order. A transaction that notifies
/// takes a lock for its commit that every other notifying transaction waits for, so one commit
/// per batch is also one wait instead of one per publish.
struct EventPublishBatchStatement: PostgresPreparedStatement {
    /// The publish's position in the batch (from 1) and its job's id, `nil` when its event has no
    /// subscribers.
    typealias Row = (Int64, Int64?)

    static let sql = """
        WITH input AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::text[], $6::text[], $7::text[], $8::text[])
                WITH ORDINALITY AS i(event, notification, payload, now, origin, publish_id, receipt_event, announcement, ord)
        ), audience AS (
            SELECT e.event, (SELECT count(*) FROM subscriptions WHERE subscriptions.event = e.event) AS n
            FROM (SELECT DISTINCT event FROM input) AS e
        ), statistics AS (
            INSERT INTO events (name, created, last, total)
            SELECT i.event, min(i.now), max(i.now), count(*) FROM input AS i JOIN audience AS a USING (event) WHERE a.n > 0 GROUP BY i.event
            ON CONFLICT (name) DO UPDATE SET total = events.total + excluded.total, last = excluded.last
        ), job AS (
            INSERT INTO publish_jobs (audience_kind, audience_value, notification, payload, published_at, origin, publish_id)
            SELECT 'subscribers', i.event, i.notification, i.payload, i.now, i.origin, i.publish_id
            FROM input AS i JOIN audience AS a USING (event) WHERE a.n > 0
            ORDER BY i.ord
            RETURNING id, publish_id
        ), receipt AS (
            INSERT INTO publishes (id, event, state, audience, created, started, finished)
            SELECT i.publish_id, i.receipt_event, CASE WHEN a.n > 0 THEN 'fanning_out' ELSE 'done' END, a.n, i.now,
                   CASE WHEN a.n > 0 THEN NULL ELSE i.now END, CASE WHEN a.n > 0 THEN NULL ELSE i.now END
            FROM input AS i JOIN audience AS a USING (event)
        ), woken AS (
            SELECT pg_notify($9, $10) WHERE EXISTS (SELECT 1 FROM job)
        ), announced AS (
            SELECT pg_notify($9, i.announcement) FROM input AS i WHERE i.announcement IS NOT NULL ORDER BY i.ord
        )
        SELECT i.ord, j.id
        FROM input AS i LEFT JOIN job AS j USING (publish_id)
        CROSS JOIN (SELECT (SELECT count(*) FROM woken) AS woken, (SELECT count(*) FROM announced) AS announced) AS notified
        """

    static let bindingDataTypes: [PostgresDataType] = [
        .textArray, .textArray, .textArray, .int8Array, .textArray, .textArray, .textArray, .textArray, .text, .text,
    ]

    /// The publishes, each as it would run alone (their channel and wake-up are the store's, the
    /// same for all).
    let publishes: [EventPublishStatement]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 10)
        bindings.append(publishes.map(\.event))
        bindings.append(NullableTextArray(publishes.map(\.notification)))
        bindings.append(NullableTextArray(publishes.map(\.payload)))
        bindings.append(publishes.map(\.now))
        bindings.append(publishes.map(\.origin))
        bindings.append(publishes.map(\.publishID))
        bindings.append(publishes.map(\.receiptEvent))
        bindings.append(NullableTextArray(publishes.map(\.announcement)))
        bindings.append(publishes[0].channel)
        bindings.append(publishes[0].jobsWakeUp)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((Int64, Int64?).self)
    }
}
