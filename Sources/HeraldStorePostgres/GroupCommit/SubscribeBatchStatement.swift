import PostgresNIO

/// Subscriptions of a group commit (``PostgresGroupCommit``) as one prepared statement: each one
/// as ``PostgresStore/subscribe(_:to:ignoreMessage:now:)`` makes it alone (the subscription
/// upserted, a new one's event created), for the whole batch in one round trip and one commit.
///
/// There is no check that the subscribers exist: the subscriptions' foreign key refuses the
/// statement when one does not, and the caller then runs each alone, where an unknown
/// subscriber is answered as such. The caller keeps one subscription per
/// `(subscriber, event)` in a batch (an upsert cannot write a row twice).
struct SubscribeBatchStatement: PostgresPreparedStatement {
    /// One subscription to make.
    struct Subscription: Sendable {
        let subscriberID: String
        let event: String
        let ignoreMessage: Bool
        let now: Int64
        /// Whether the event has a row of its own once subscribed to (a special event has none).
        let createsEvent: Bool
    }

    /// The subscription's position in the batch (from 1) and whether it is new.
    typealias Row = (Int64, Bool)

    static let sql = """
        WITH input AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::bool[], $4::int8[], $5::bool[])
                WITH ORDINALITY AS i(subscriber_id, event, ignore_message, now, creates_event, ord)
        ), upserted AS (
            INSERT INTO subscriptions AS s (event, subscriber_id, ignore_message)
            SELECT event, subscriber_id, ignore_message FROM input ORDER BY ord
            ON CONFLICT (event, subscriber_id) DO UPDATE SET ignore_message = excluded.ignore_message
            RETURNING s.event, s.subscriber_id, (s.xmax = 0) AS inserted
        ), created_events AS (
            INSERT INTO events (name, created)
            SELECT i.event, min(i.now) FROM upserted AS u JOIN input AS i USING (event, subscriber_id)
            WHERE u.inserted AND i.creates_event GROUP BY i.event
            ON CONFLICT (name) DO NOTHING
        )
        SELECT i.ord, u.inserted FROM input AS i JOIN upserted AS u USING (event, subscriber_id)
        """

    static let bindingDataTypes: [PostgresDataType] = [.textArray, .textArray, .boolArray, .int8Array, .boolArray]

    let subscriptions: [Subscription]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(subscriptions.map(\.subscriberID))
        bindings.append(subscriptions.map(\.event))
        bindings.append(subscriptions.map(\.ignoreMessage))
        bindings.append(subscriptions.map(\.now))
        bindings.append(subscriptions.map(\.createsEvent))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((Int64, Bool).self)
    }
}
