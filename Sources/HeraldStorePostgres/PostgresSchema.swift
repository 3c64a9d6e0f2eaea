/// The PostgreSQL schema, as versioned migrations.
///
/// The same tables as SQLite's schema at its latest version (`SQLiteSchema`), written once
/// rather than replaying SQLite's history. Text that is compared or ordered (ids, event names,
/// providers) uses the `"C"` collation: the API promises byte order, whatever the database's
/// default collation. Times are Unix seconds or milliseconds in `bigint`, as the store protocol
/// gives them; contents are their JSON text.
enum PostgresSchema {
    /// One migration: a version, a name for the log, and its statements, run in one transaction.
    struct Migration: Sendable {
        var version: Int
        var name: String
        var statements: [String]
    }

    /// The key of the advisory lock held while migrating: nodes starting together on an empty
    /// database take turns, and each after the first finds nothing left to do.
    static let advisoryLockKey: Int64 = 0x4865_7261_6C64_0001  // "Herald" + 1

    /// Migrations in order; a released migration is never edited, only followed by a new one.
    static let migrations: [Migration] = [
        Migration(version: 1, name: "v1-initial", statements: [
            // `identity` is what makes two registrations the same subscriber (the token, or a Web
            // Push endpoint whose keys may change).
            """
            CREATE TABLE subscribers (
                id text COLLATE "C" NOT NULL PRIMARY KEY,
                proto text COLLATE "C" NOT NULL,
                token text NOT NULL,
                identity text NOT NULL,
                lang text,
                version text,
                category text,
                content_available text,
                created bigint NOT NULL,
                updated bigint NOT NULL,
                failures integer NOT NULL DEFAULT 0,
                UNIQUE (proto, identity)
            )
            """,
            // Only subscribers with a failure count, usually none: a page of successes finds the
            // counters to reset without touching every subscriber of the page.
            "CREATE INDEX subscribers_failing ON subscribers (id) WHERE failures <> 0",
            // Every delivery of a badge-counting kind increments a badge: in a narrow table of its
            // own, each new row version is small (and heap-only when possible) instead of a copy of
            // the whole subscriber.
            """
            CREATE TABLE badges (
                subscriber_id text COLLATE "C" NOT NULL PRIMARY KEY REFERENCES subscribers (id) ON DELETE CASCADE,
                badge text
            )
            """,
            // Keyed by (event, subscriber_id): an event's audience is one index range in
            // subscriber-id order, which is exactly the keyset page.
            """
            CREATE TABLE subscriptions (
                event text COLLATE "C" NOT NULL,
                subscriber_id text COLLATE "C" NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
                ignore_message boolean NOT NULL,
                PRIMARY KEY (event, subscriber_id)
            )
            """,
            "CREATE INDEX subscriptions_by_subscriber ON subscriptions (subscriber_id, event)",
            // Ordinary events have a row exactly while they have a subscription; `broadcast` and
            // `unicast:<id>` have one once published to. Subscriber counts are counted when asked
            // (an index range), not kept by triggers: a counter row every registration or
            // subscription updated would serialize the nodes' writes on it.
            """
            CREATE TABLE events (
                name text COLLATE "C" NOT NULL PRIMARY KEY,
                created bigint NOT NULL,
                last bigint,
                total bigint NOT NULL DEFAULT 0,
                delivered bigint NOT NULL DEFAULT 0,
                failed bigint NOT NULL DEFAULT 0
            )
            """,
            // Sequences never hand an id out twice: a worker that lost its lease cannot complete
            // a newer job that reused the id.
            """
            CREATE TABLE publish_jobs (
                id bigserial PRIMARY KEY,
                audience_kind text NOT NULL,
                audience_value text,
                origin text NOT NULL DEFAULT 'pushd',
                notification text,
                payload text,
                published_at bigint NOT NULL,
                cursor text COLLATE "C",
                pending text,
                lease_owner text,
                lease_expires bigint,
                CHECK ((notification IS NULL) = (payload IS NOT NULL))
            )
            """,
            """
            CREATE TABLE retries (
                id bigserial PRIMARY KEY,
                subscriber_id text COLLATE "C" REFERENCES subscribers (id) ON DELETE CASCADE,
                proto text,
                token text,
                origin text NOT NULL DEFAULT 'pushd',
                statistics_event text COLLATE "C",
                notification text,
                payload text,
                silent boolean NOT NULL,
                badge integer,
                attempts integer NOT NULL,
                max_attempts integer,
                due_at bigint NOT NULL,
                published_at bigint NOT NULL,
                last_reason text,
                lease_owner text,
                lease_expires bigint,
                CHECK ((subscriber_id IS NULL) = (token IS NOT NULL)),
                CHECK ((notification IS NULL) = (payload IS NOT NULL))
            )
            """,
            "CREATE INDEX retries_by_due_at ON retries (due_at, id)",
            // The cascade from subscribers needs it, or each deletion scans every retry.
            "CREATE INDEX retries_by_subscriber ON retries (subscriber_id) WHERE subscriber_id IS NOT NULL",
            // Only leased rows, a handful at any time: `nextRetryDue` sees abandoned leases without
            // scanning a backlog of millions, and releasing a node's leases finds them at once.
            "CREATE INDEX retries_leased ON retries (lease_expires) WHERE lease_expires IS NOT NULL",
            // No foreign key: the log outlives the subscribers it names.
            """
            CREATE TABLE feedback (
                id bigserial PRIMARY KEY,
                time bigint NOT NULL,
                subscriber_id text COLLATE "C",
                origin text COLLATE "C" NOT NULL DEFAULT 'pushd',
                proto text NOT NULL,
                token text NOT NULL,
                status integer,
                reason text NOT NULL,
                action text NOT NULL,
                replacement text,
                reference text,
                invalid_since bigint,
                taken boolean NOT NULL DEFAULT false
            )
            """,
            "CREATE INDEX feedback_by_time ON feedback (time)",
            // A front-end reads its own feedback forward from a cursor, and takes what it has not yet.
            "CREATE INDEX feedback_by_origin ON feedback (origin, id)",
            "CREATE INDEX feedback_untaken ON feedback (origin, id) WHERE NOT taken",
            // No foreign key: a dead letter stays visible after its subscriber is gone, though it
            // can only be replayed while the subscriber exists.
            """
            CREATE TABLE dead_letters (
                id bigserial PRIMARY KEY,
                time bigint NOT NULL,
                subscriber_id text COLLATE "C",
                origin text NOT NULL DEFAULT 'pushd',
                proto text NOT NULL,
                token text NOT NULL,
                event text NOT NULL,
                statistics_event text COLLATE "C",
                notification text,
                payload text,
                silent boolean NOT NULL,
                badge integer,
                attempts integer NOT NULL,
                max_attempts integer,
                published_at bigint NOT NULL,
                status integer,
                reason text NOT NULL,
                CHECK ((notification IS NULL) = (payload IS NOT NULL))
            )
            """,
            "CREATE INDEX dead_letters_by_time ON dead_letters (time)",
            // Events too large for a NOTIFY payload (8000 bytes): the notification carries the row's
            // id and every node reads the event here. Kept a few minutes, then pruned.
            """
            CREATE TABLE announcements (
                id bigserial PRIMARY KEY,
                created timestamptz NOT NULL DEFAULT now(),
                event text NOT NULL
            )
            """,
        ]),
        // A publish shared out among the nodes: each part of the audience is a job up to its end.
        Migration(version: 2, name: "v2-shared-fan-out", statements: [
            "ALTER TABLE publish_jobs ADD COLUMN end_id text COLLATE \"C\"",
        ]),
        // Room on every page for the next version of each badge row, so that an increment is a
        // heap-only update (no index entry to write): half the time of a page of increments.
        Migration(version: 3, name: "v3-badges-fillfactor", statements: [
            "ALTER TABLE badges SET (fillfactor = 50)",
        ]),
        // Leases a front-end takes by name (FrontEndLeases); `expires` in Unix milliseconds of the
        // database's clock.
        Migration(version: 4, name: "v4-front-end-leases", statements: [
            """
            CREATE TABLE front_end_leases (
                name text PRIMARY KEY,
                owner text NOT NULL,
                expires bigint NOT NULL
            )
            """,
        ]),
        // Publish receipts (`GET /publishes/<id>`), scheduled publishes and idempotency keys. A
        // scheduled publish keeps its content here until it is released as a job. Jobs and retries
        // name the publish they count in, so a receipt counts its retries from the queue itself.
        Migration(version: 5, name: "v5-publish-receipts", statements: [
            """
            CREATE TABLE publishes (
                id text COLLATE "C" PRIMARY KEY,
                event text NOT NULL,
                state text NOT NULL,
                audience bigint NOT NULL DEFAULT 0,
                reached bigint NOT NULL DEFAULT 0,
                delivered bigint NOT NULL DEFAULT 0,
                failed bigint NOT NULL DEFAULT 0,
                skipped bigint NOT NULL DEFAULT 0,
                dead_lettered bigint NOT NULL DEFAULT 0,
                created bigint NOT NULL,
                scheduled_at bigint,
                started bigint,
                finished bigint,
                idempotency_key text UNIQUE,
                fingerprint text,
                audience_kind text,
                audience_value text,
                origin text,
                notification text,
                payload text
            )
            """,
            "CREATE INDEX publishes_due ON publishes (scheduled_at) WHERE state = 'scheduled'",
            "CREATE INDEX publishes_finished ON publishes (finished) WHERE finished IS NOT NULL",
            "CREATE INDEX publishes_open ON publishes (state) WHERE state = 'fanning_out'",
            "CREATE INDEX publishes_keys ON publishes (created) WHERE idempotency_key IS NOT NULL",
            """
            CREATE TABLE publish_failures (
                publish_id text COLLATE "C" NOT NULL,
                reason text NOT NULL,
                count bigint NOT NULL,
                PRIMARY KEY (publish_id, reason)
            )
            """,
            "ALTER TABLE publish_jobs ADD COLUMN publish_id text COLLATE \"C\"",
            "CREATE INDEX publish_jobs_by_publish ON publish_jobs (publish_id) WHERE publish_id IS NOT NULL",
            "ALTER TABLE retries ADD COLUMN publish_id text COLLATE \"C\"",
            "CREATE INDEX retries_by_publish ON retries (publish_id) WHERE publish_id IS NOT NULL",
        ]),
        // Badge rows created at a subscriber's first counted delivery (or when a badge is given),
        // no longer at registration. Rows made at registration lie in its order, while a fan-out
        // walks ids, random to it: each of a page's 1,000 increments landed on another page of
        // the table, pruned it and dirtied it. Created by the fan-out, a page's rows are appended
        // together in id order, and so read and incremented together by the next fan-outs.
        //
        // Without the foreign key: its check locks each member's subscriber row, a write to a
        // page of subscribers for every insert (replayed, the statements of a first fan-out of
        // 100,000 took 0.88 s with those locks and 0.58 s without). Deleting subscribers deletes
        // their badges itself (``PostgresStore/deleteSubscribers(_:on:logger:)``), and
        // `badge_leftovers` lists the deleted ids, so that a badge that a concurrent fan-out page
        // created for one after the deletion (its snapshot older than the deletion) is deleted a
        // while later.
        Migration(version: 6, name: "v6-badges-at-first-count", statements: [
            "ALTER TABLE badges DROP CONSTRAINT badges_subscriber_id_fkey",
            "DELETE FROM badges WHERE badge IS NULL",
            """
            CREATE TABLE badge_leftovers (
                subscriber_id text COLLATE "C" NOT NULL,
                deleted timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX badge_leftovers_by_time ON badge_leftovers (deleted)",
        ]),
        // `deadTokens(proto:among:since:)`: the Matrix gateway asks whether a pushkey was reported
        // dead before it queues a delivery.
        Migration(version: 7, name: "v7-dead-tokens", statements: [
            "CREATE INDEX feedback_dead_tokens ON feedback (proto, token, time) WHERE action = 'invalid'",
        ]),
        // `scheduleRetries(_:once:now:)`: what the Matrix gateway queued for an event and a
        // pushkey, so that a homeserver's repeat within a day queues nothing, whichever node takes it.
        Migration(version: 8, name: "v8-delivery-keys", statements: [
            #"CREATE TABLE delivery_keys (key text COLLATE "C" PRIMARY KEY, expires_at bigint NOT NULL)"#,
            "CREATE INDEX delivery_keys_by_expiry ON delivery_keys (expires_at)",
        ]),
        // `herald tokens`, `/tokens`: tokens by name, with the digest of their secret (never the
        // secret) unique, so that two tokens can never authenticate as each other. Scopes are in
        // `TokenColumns`' form, as in SQLite; names in byte order, as the listing promises.
        Migration(version: 9, name: "v9-api-tokens", statements: [
            """
            CREATE TABLE api_tokens (
                name text COLLATE "C" PRIMARY KEY,
                digest text COLLATE "C" NOT NULL UNIQUE,
                realms text NOT NULL,
                providers text,
                events text,
                created bigint NOT NULL,
                expires bigint,
                last_used bigint
            )
            """,
        ]),
        // UnifiedPush (the ntfy-compatible push server): topics, and the messages posted to them
        // kept until their TTL, as in SQLite. `sequence` is an identity column: readers resume after
        // the last one they saw, across every node (``PostgresStore/storeMessage(_:)`` commits
        // messages in its order). Bodies are bytea, as sent (Web Push bodies are encrypted bytes).
        // Reads go by topic in sequence order, pruning by expiry, and replacement (the RFC 8030
        // `Topic` header) by topic and key, for the few messages that have one.
        Migration(version: 10, name: "v10-unifiedpush", statements: [
            """
            CREATE TABLE push_topics (
                name text COLLATE "C" PRIMARY KEY,
                vapid_key text,
                last_subscribed bigint NOT NULL,
                created bigint NOT NULL
            )
            """,
            """
            CREATE TABLE push_messages (
                sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id text COLLATE "C" NOT NULL UNIQUE,
                topic text COLLATE "C" NOT NULL,
                time bigint NOT NULL,
                expires_at bigint NOT NULL,
                body bytea NOT NULL,
                urgency text,
                replace_key text COLLATE "C"
            )
            """,
            "CREATE INDEX push_messages_by_topic ON push_messages (topic, sequence)",
            "CREATE INDEX push_messages_by_expiry ON push_messages (expires_at)",
            "CREATE INDEX push_messages_replaceable ON push_messages (topic, replace_key) WHERE replace_key IS NOT NULL",
        ]),
    ]
}
