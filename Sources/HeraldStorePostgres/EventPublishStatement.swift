import PostgresNIO

/// A publish to an event's subscribers, sent now and without an idempotency key (the common
/// `POST /event/<name>`), as one prepared statement: the audience counted, the statistics
/// bumped, the job stored and the other nodes woken for it, the receipt written, and the event
/// announced to every node's listeners; the general path (``PostgresStore/enqueue(_:now:)``) takes a
/// transaction of up to eight round trips and a notification of its own.
///
/// A publish nobody is subscribed to stores only its receipt, `done` with an audience of 0.
struct EventPublishStatement: PostgresPreparedStatement {
    /// The job's id; `nil` when the event has no subscribers.
    typealias Row = Int64?

    static let sql = """
        WITH audience AS (
            SELECT count(*) AS n FROM subscriptions WHERE event = $1
        ), statistics AS (
            INSERT INTO events (name, created, last, total) SELECT $1, $4, $4, 1 FROM audience WHERE n > 0
            ON CONFLICT (name) DO UPDATE SET total = events.total + 1, last = excluded.last
        ), job AS (
            INSERT INTO publish_jobs (audience_kind, audience_value, notification, payload, published_at, origin, publish_id)
            SELECT 'subscribers', $1, $2, $3, $4, $5, $6 FROM audience WHERE n > 0
            RETURNING id
        ), receipt AS (
            INSERT INTO publishes (id, event, state, audience, created, started, finished)
            SELECT $6, $7, CASE WHEN n > 0 THEN 'fanning_out' ELSE 'done' END, n, $4,
                   CASE WHEN n > 0 THEN NULL ELSE $4 END, CASE WHEN n > 0 THEN NULL ELSE $4 END
            FROM audience
        )
        SELECT (SELECT id FROM job),
               (SELECT count(*) FROM job CROSS JOIN LATERAL (SELECT pg_notify($8, $9)) AS woken),
               (SELECT count(*) FROM (SELECT pg_notify($8, $10) WHERE $10 IS NOT NULL) AS announced)
        """

    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .int8, .text, .text, .text, .text, .text, .text]

    /// The event whose subscribers receive it.
    let event: String
    /// The stored notification and payload (``PostgresCodec/encode(_:)``).
    let notification: String?
    let payload: String?
    let now: Int64
    let origin: String
    /// The publish's (and its receipt's) id.
    let publishID: String
    /// The event name the receipt shows.
    let receiptEvent: String
    /// Where the other nodes listen, and what tells them a job is waiting.
    let channel: String
    let jobsWakeUp: String
    /// The event for every node's listeners (``WakeUpMessage/event(_:)``); `nil` when it is too
    /// large for a notification and is announced through a row afterwards.
    let announcement: String?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 10)
        bindings.append(event)
        bindings.append(notification)
        bindings.append(payload)
        bindings.append(now)
        bindings.append(origin)
        bindings.append(publishID)
        bindings.append(receiptEvent)
        bindings.append(channel)
        bindings.append(jobsWakeUp)
        bindings.append(announcement)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((Int64?, Int64, Int64).self).0
    }
}
