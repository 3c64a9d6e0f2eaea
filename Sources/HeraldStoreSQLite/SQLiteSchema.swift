import GRDB

/// The SQLite schema, as migrations.
///
/// Tables are `STRICT` so that a value of the wrong type is refused instead of
/// silently stored, as PostgreSQL would. Text compares with SQLite's `BINARY`
/// collation, which is the byte order the API promises for event names and ids.
enum SQLiteSchema {
    /// Migrations in order; a released migration is never edited, only followed by a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // `identity` is what makes two registrations the same subscriber (the token,
            // or a Web Push endpoint whose keys may change). WITHOUT ROWID clusters rows
            // by id, so broadcast pages and id lookups read the table directly.
            try db.execute(sql: """
                CREATE TABLE subscribers (
                    id TEXT NOT NULL PRIMARY KEY,
                    proto TEXT NOT NULL,
                    token TEXT NOT NULL,
                    identity TEXT NOT NULL,
                    lang TEXT,
                    badge TEXT,
                    version TEXT,
                    category TEXT,
                    content_available TEXT,
                    created INTEGER NOT NULL,
                    updated INTEGER NOT NULL,
                    failures INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (proto, identity)
                ) STRICT, WITHOUT ROWID
                """)
            // Keyed by (event, subscriber_id): an event's audience is one index range
            // in subscriber-id order, which is exactly the keyset page.
            try db.execute(sql: """
                CREATE TABLE subscriptions (
                    event TEXT NOT NULL,
                    subscriber_id TEXT NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
                    ignore_message INTEGER NOT NULL,
                    PRIMARY KEY (event, subscriber_id)
                ) STRICT, WITHOUT ROWID
                """)
            try db.execute(sql: "CREATE INDEX subscriptions_by_subscriber ON subscriptions (subscriber_id, event)")
            // Ordinary events have a row exactly while they have a subscription; the
            // special names `broadcast` and `unicast:<id>` have one once published to.
            // The subscriber count was counted when asked until v5, which keeps it by triggers.
            try db.execute(sql: """
                CREATE TABLE events (
                    name TEXT NOT NULL PRIMARY KEY,
                    created INTEGER NOT NULL,
                    last INTEGER,
                    total INTEGER NOT NULL DEFAULT 0,
                    delivered INTEGER NOT NULL DEFAULT 0,
                    failed INTEGER NOT NULL DEFAULT 0
                ) STRICT, WITHOUT ROWID
                """)
            // AUTOINCREMENT so that ids never repeat: a worker that lost its lease must
            // not be able to complete a newer job that reused the id.
            try db.execute(sql: """
                CREATE TABLE publish_jobs (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    audience_kind TEXT NOT NULL,
                    audience_value TEXT,
                    notification BLOB NOT NULL,
                    published_at INTEGER NOT NULL,
                    cursor TEXT,
                    lease_owner TEXT,
                    lease_expires INTEGER
                ) STRICT
                """)
            try db.execute(sql: """
                CREATE TABLE retries (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    subscriber_id TEXT NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
                    statistics_event TEXT,
                    notification BLOB NOT NULL,
                    silent INTEGER NOT NULL,
                    badge INTEGER,
                    attempts INTEGER NOT NULL,
                    due_at INTEGER NOT NULL,
                    published_at INTEGER NOT NULL,
                    last_reason TEXT,
                    lease_owner TEXT,
                    lease_expires INTEGER
                ) STRICT
                """)
            try db.execute(sql: "CREATE INDEX retries_by_due_at ON retries (due_at)")
            // The cascade from subscribers needs it, or each deletion scans every retry.
            try db.execute(sql: "CREATE INDEX retries_by_subscriber ON retries (subscriber_id)")
            // Only leased rows, a handful at any time: lets `nextRetryDue` see abandoned
            // leases without scanning a backlog that may hold millions of retries.
            try db.execute(sql: "CREATE INDEX retries_leased ON retries (lease_expires) WHERE lease_expires IS NOT NULL")
            // No foreign key: the log outlives the subscribers it names.
            try db.execute(sql: """
                CREATE TABLE feedback (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time INTEGER NOT NULL,
                    subscriber_id TEXT NOT NULL,
                    proto TEXT NOT NULL,
                    token TEXT NOT NULL,
                    status INTEGER,
                    reason TEXT NOT NULL,
                    action TEXT NOT NULL
                ) STRICT
                """)
            try db.execute(sql: "CREATE INDEX feedback_by_time ON feedback (time)")
        }
        migrator.registerMigration("v2-dead-letters") { db in
            // No foreign key: a dead letter stays visible after its subscriber is gone, though it
            // can only be replayed while the subscriber exists.
            try db.execute(sql: """
                CREATE TABLE dead_letters (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time INTEGER NOT NULL,
                    subscriber_id TEXT NOT NULL,
                    proto TEXT NOT NULL,
                    token TEXT NOT NULL,
                    event TEXT NOT NULL,
                    statistics_event TEXT,
                    notification BLOB NOT NULL,
                    silent INTEGER NOT NULL,
                    badge INTEGER,
                    attempts INTEGER NOT NULL,
                    published_at INTEGER NOT NULL,
                    status INTEGER,
                    reason TEXT NOT NULL
                ) STRICT
                """)
            try db.execute(sql: "CREATE INDEX dead_letters_by_time ON dead_letters (time)")
        }
        migrator.registerMigration("v3-feedback-replacement") { db in
            // The token stored instead, for `replaced` entries (legacy GCM canonical ids).
            try db.execute(sql: "ALTER TABLE feedback ADD COLUMN replacement TEXT")
        }
        migrator.registerMigration("v4-failing-subscribers") { db in
            // Only subscribers with a failure count, usually few or none: lets recording a page of
            // successes find the counters to reset without looking up every subscriber of the page.
            try db.execute(sql: "CREATE INDEX subscribers_failing ON subscribers (id) WHERE failures <> 0")
        }
        migrator.registerMigration("v5-subscriber-counts") { db in
            // `GET /event/:name` reported its subscribers by counting them per call, which costs
            // a scan of the event's index range (tens of milliseconds at a million). The counts
            // are kept by triggers instead, so every path that adds or removes a subscription or
            // a subscriber (cascades included: SQLite fires triggers for foreign-key actions)
            // keeps them, and nothing outside SQL can let them drift.
            try db.execute(sql: """
                ALTER TABLE events ADD COLUMN subscribers INTEGER NOT NULL DEFAULT 0;
                UPDATE events SET subscribers = (SELECT count(*) FROM subscriptions WHERE subscriptions.event = events.name);
                CREATE TABLE totals (
                    name TEXT NOT NULL PRIMARY KEY,
                    value INTEGER NOT NULL
                ) STRICT, WITHOUT ROWID;
                INSERT INTO totals (name, value) SELECT 'subscribers', count(*) FROM subscribers;
                CREATE TRIGGER subscriptions_counted AFTER INSERT ON subscriptions BEGIN
                    UPDATE events SET subscribers = subscribers + 1 WHERE name = NEW.event;
                END;
                CREATE TRIGGER subscriptions_uncounted AFTER DELETE ON subscriptions BEGIN
                    UPDATE events SET subscribers = subscribers - 1 WHERE name = OLD.event;
                END;
                -- An event row may be created after its first subscription: it starts from the count.
                CREATE TRIGGER events_counted AFTER INSERT ON events BEGIN
                    UPDATE events SET subscribers = (SELECT count(*) FROM subscriptions WHERE event = NEW.name)
                    WHERE name = NEW.name;
                END;
                CREATE TRIGGER subscribers_counted AFTER INSERT ON subscribers BEGIN
                    UPDATE totals SET value = value + 1 WHERE name = 'subscribers';
                END;
                CREATE TRIGGER subscribers_uncounted AFTER DELETE ON subscribers BEGIN
                    UPDATE totals SET value = value - 1 WHERE name = 'subscribers';
                END;
                """)
        }
        migrator.registerMigration("v6-badges") { db in
            // Every APNs (and WNS badge) delivery increments its subscriber's stored badge. In the
            // subscribers row, about 170 bytes, the increment rewrote the whole record and dirtied a
            // page per two dozen subscribers, each then written to the log and copied back: the
            // largest part of a fan-out's SQLite work. A row of its own is a small record among
            // hundreds per page. Every subscriber has one, made by the trigger with the subscriber
            // (so that no way of adding subscribers can forget it) and removed by the cascade.
            try db.execute(sql: """
                CREATE TABLE badges (
                    subscriber_id TEXT NOT NULL PRIMARY KEY REFERENCES subscribers (id) ON DELETE CASCADE,
                    badge TEXT
                ) STRICT, WITHOUT ROWID;
                INSERT INTO badges (subscriber_id, badge) SELECT id, badge FROM subscribers;
                ALTER TABLE subscribers DROP COLUMN badge;
                CREATE TRIGGER subscribers_badged AFTER INSERT ON subscribers BEGIN
                    INSERT INTO badges (subscriber_id) VALUES (NEW.id);
                END;
                """)
        }
        migrator.registerMigration("v7-pending-deliveries") { db in
            // Outcomes are settled as they arrive, not page by page: the cursor is the last member
            // handed to a provider, and `pending` (a JSON array of subscriber ids) lists those at or
            // before it whose outcome was not yet recorded. A restart sends only those again.
            try db.execute(sql: "ALTER TABLE publish_jobs ADD COLUMN pending TEXT")
        }
        migrator.registerMigration("v8-raw-sends-and-origins") { db in
            // Raw-token sends (the compat front-ends) wait in the delivery queue beside retries, with
            // no subscriber: `proto` and `token` name the recipient instead, and `payload` holds a
            // prepared provider payload instead of a notification (jobs may carry one too). Feedback
            // and dead letters of raw tokens have no subscriber either, and every row says which
            // front-end it came through. SQLite cannot drop a NOT NULL, so four tables are rebuilt.
            //
            // Each rebuilt table keeps its AUTOINCREMENT sequence: ids never repeat (a feedback
            // reader's cursor, a job a lost lease might still name), even those of deleted rows.
            func keepSequence(_ table: String) throws {
                try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = ?", arguments: ["\(table)_v8"])
                try db.execute(
                    sql: "INSERT INTO sqlite_sequence (name, seq) SELECT ?, seq FROM sqlite_sequence WHERE name = ?",
                    arguments: ["\(table)_v8", table])
            }
            try db.execute(sql: """
                CREATE TABLE retries_v8 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    subscriber_id TEXT REFERENCES subscribers (id) ON DELETE CASCADE,
                    proto TEXT,
                    token TEXT,
                    origin TEXT NOT NULL DEFAULT 'pushd',
                    statistics_event TEXT,
                    notification BLOB,
                    payload BLOB,
                    silent INTEGER NOT NULL,
                    badge INTEGER,
                    attempts INTEGER NOT NULL,
                    max_attempts INTEGER,
                    due_at INTEGER NOT NULL,
                    published_at INTEGER NOT NULL,
                    last_reason TEXT,
                    lease_owner TEXT,
                    lease_expires INTEGER,
                    CHECK ((subscriber_id IS NULL) = (token IS NOT NULL)),
                    CHECK ((notification IS NULL) = (payload IS NOT NULL))
                ) STRICT;
                INSERT INTO retries_v8 (id, subscriber_id, statistics_event, notification, silent, badge, attempts, due_at,
                                        published_at, last_reason, lease_owner, lease_expires)
                    SELECT id, subscriber_id, statistics_event, notification, silent, badge, attempts, due_at,
                           published_at, last_reason, lease_owner, lease_expires FROM retries;
                """)
            try keepSequence("retries")
            try db.execute(sql: """
                DROP TABLE retries;
                ALTER TABLE retries_v8 RENAME TO retries;
                CREATE INDEX retries_by_due_at ON retries (due_at);
                CREATE INDEX retries_by_subscriber ON retries (subscriber_id) WHERE subscriber_id IS NOT NULL;
                CREATE INDEX retries_leased ON retries (lease_expires) WHERE lease_expires IS NOT NULL;

                CREATE TABLE feedback_v8 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time INTEGER NOT NULL,
                    subscriber_id TEXT,
                    origin TEXT NOT NULL DEFAULT 'pushd',
                    proto TEXT NOT NULL,
                    token TEXT NOT NULL,
                    status INTEGER,
                    reason TEXT NOT NULL,
                    action TEXT NOT NULL,
                    replacement TEXT,
                    reference TEXT,
                    invalid_since INTEGER,
                    taken INTEGER NOT NULL DEFAULT 0
                ) STRICT;
                INSERT INTO feedback_v8 (id, time, subscriber_id, proto, token, status, reason, action, replacement)
                    SELECT id, time, subscriber_id, proto, token, status, reason, action, replacement FROM feedback;
                """)
            try keepSequence("feedback")
            try db.execute(sql: """
                DROP TABLE feedback;
                ALTER TABLE feedback_v8 RENAME TO feedback;
                CREATE INDEX feedback_by_time ON feedback (time);
                -- A front-end reads its own feedback forward from a cursor, and takes what it has not yet.
                CREATE INDEX feedback_by_origin ON feedback (origin, id);
                CREATE INDEX feedback_untaken ON feedback (origin, id) WHERE taken = 0;

                CREATE TABLE dead_letters_v8 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time INTEGER NOT NULL,
                    subscriber_id TEXT,
                    origin TEXT NOT NULL DEFAULT 'pushd',
                    proto TEXT NOT NULL,
                    token TEXT NOT NULL,
                    event TEXT NOT NULL,
                    statistics_event TEXT,
                    notification BLOB,
                    payload BLOB,
                    silent INTEGER NOT NULL,
                    badge INTEGER,
                    attempts INTEGER NOT NULL,
                    max_attempts INTEGER,
                    published_at INTEGER NOT NULL,
                    status INTEGER,
                    reason TEXT NOT NULL,
                    CHECK ((notification IS NULL) = (payload IS NOT NULL))
                ) STRICT;
                INSERT INTO dead_letters_v8 (id, time, subscriber_id, proto, token, event, statistics_event, notification, silent,
                                             badge, attempts, published_at, status, reason)
                    SELECT id, time, subscriber_id, proto, token, event, statistics_event, notification, silent,
                           badge, attempts, published_at, status, reason FROM dead_letters;
                """)
            try keepSequence("dead_letters")
            try db.execute(sql: """
                DROP TABLE dead_letters;
                ALTER TABLE dead_letters_v8 RENAME TO dead_letters;
                CREATE INDEX dead_letters_by_time ON dead_letters (time);

                CREATE TABLE publish_jobs_v8 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    audience_kind TEXT NOT NULL,
                    audience_value TEXT,
                    origin TEXT NOT NULL DEFAULT 'pushd',
                    notification BLOB,
                    payload BLOB,
                    published_at INTEGER NOT NULL,
                    cursor TEXT,
                    pending TEXT,
                    lease_owner TEXT,
                    lease_expires INTEGER,
                    CHECK ((notification IS NULL) = (payload IS NOT NULL))
                ) STRICT;
                INSERT INTO publish_jobs_v8 (id, audience_kind, audience_value, notification, published_at, cursor, pending,
                                             lease_owner, lease_expires)
                    SELECT id, audience_kind, audience_value, notification, published_at, cursor, pending, lease_owner, lease_expires
                    FROM publish_jobs;
                """)
            try keepSequence("publish_jobs")
            try db.execute(sql: """
                DROP TABLE publish_jobs;
                ALTER TABLE publish_jobs_v8 RENAME TO publish_jobs;
                """)
        }
        // A publish shared out among workers: each part of the audience is a job up to its end.
        migrator.registerMigration("v9-shared-fan-out") { db in
            try db.execute(sql: "ALTER TABLE publish_jobs ADD COLUMN end_id TEXT")
        }
        // Leases a front-end takes by name (FrontEndLeases); `expires` in Unix milliseconds.
        migrator.registerMigration("v10-front-end-leases") { db in
            try db.execute(sql: """
                CREATE TABLE front_end_leases (
                    name TEXT PRIMARY KEY,
                    owner TEXT NOT NULL,
                    expires INTEGER NOT NULL
                ) STRICT
                """)
        }
        // Publish receipts (`GET /publishes/<id>`), scheduled publishes and idempotency keys. A
        // scheduled publish keeps its content here until it is released as a job. Jobs and retries
        // name the publish they count in, so a receipt counts its retries from the queue itself.
        migrator.registerMigration("v11-publish-receipts") { db in
            try db.execute(sql: """
                CREATE TABLE publishes (
                    id TEXT PRIMARY KEY,
                    event TEXT NOT NULL,
                    state TEXT NOT NULL,
                    audience INTEGER NOT NULL DEFAULT 0,
                    reached INTEGER NOT NULL DEFAULT 0,
                    delivered INTEGER NOT NULL DEFAULT 0,
                    failed INTEGER NOT NULL DEFAULT 0,
                    skipped INTEGER NOT NULL DEFAULT 0,
                    dead_lettered INTEGER NOT NULL DEFAULT 0,
                    created INTEGER NOT NULL,
                    scheduled_at INTEGER,
                    started INTEGER,
                    finished INTEGER,
                    idempotency_key TEXT UNIQUE,
                    fingerprint TEXT,
                    audience_kind TEXT,
                    audience_value TEXT,
                    origin TEXT,
                    notification BLOB,
                    payload BLOB
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX publishes_due ON publishes (scheduled_at) WHERE state = 'scheduled';
                CREATE INDEX publishes_finished ON publishes (finished) WHERE finished IS NOT NULL;
                CREATE INDEX publishes_open ON publishes (state) WHERE state = 'fanning_out';
                CREATE INDEX publishes_keys ON publishes (created) WHERE idempotency_key IS NOT NULL;
                CREATE TABLE publish_failures (
                    publish_id TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (publish_id, reason)
                ) STRICT, WITHOUT ROWID;
                ALTER TABLE publish_jobs ADD COLUMN publish_id TEXT;
                CREATE INDEX publish_jobs_by_publish ON publish_jobs (publish_id) WHERE publish_id IS NOT NULL;
                ALTER TABLE retries ADD COLUMN publish_id TEXT;
                CREATE INDEX retries_by_publish ON retries (publish_id) WHERE publish_id IS NOT NULL;
                """)
        }
        migrator.registerMigration("v12-badges-on-demand") { db in
            // A registration wrote a badges row without a badge for every new subscriber: one more
            // page of a table keyed by a random id, about a third of what a registration wrote to the
            // log. The row is now written with the first badge; no row reads as no badge. Rows
            // already without a badge stay: they read the same.
            try db.execute(sql: "DROP TRIGGER subscribers_badged")
        }
        migrator.registerMigration("v13-dead-tokens") { db in
            // `deadTokens(proto:among:since:)`: the Matrix gateway asks whether a pushkey was
            // reported dead before it queues a delivery.
            try db.execute(sql: "CREATE INDEX feedback_dead_tokens ON feedback (proto, token, time) WHERE action = 'invalid'")
        }
        migrator.registerMigration("v14-delivery-keys") { db in
            // `scheduleRetries(_:once:now:)`: what the Matrix gateway queued for an event and a
            // pushkey, so that a homeserver's repeat within a day queues nothing.
            try db.execute(sql: "CREATE TABLE delivery_keys (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID")
            try db.execute(sql: "CREATE INDEX delivery_keys_by_expiry ON delivery_keys (expires_at)")
        }
        migrator.registerMigration("v15-api-tokens") { db in
            // `herald tokens`, `/tokens`: tokens by name, with the digest of their secret (never the
            // secret) unique, so that two tokens can never authenticate as each other. Scopes are in
            // `TokenColumns`' form, shared with PostgreSQL.
            try db.execute(sql: """
                CREATE TABLE api_tokens (
                    name TEXT PRIMARY KEY,
                    digest TEXT NOT NULL UNIQUE,
                    realms TEXT NOT NULL,
                    providers TEXT,
                    events TEXT,
                    created INTEGER NOT NULL,
                    expires INTEGER,
                    last_used INTEGER
                ) WITHOUT ROWID
                """)
        }
        migrator.registerMigration("v16-unifiedpush") { db in
            // UnifiedPush (the ntfy-compatible push server): topics, and the messages posted to them
            // kept until their TTL. `sequence` is AUTOINCREMENT, not a plain rowid: pruning may delete
            // the newest message, and a reused rowid would sort a later message before a reader's
            // cursor. Bodies are BLOBs, as sent (Web Push bodies are encrypted bytes). Reads go by
            // topic in sequence order, pruning by expiry, and replacement (the RFC 8030 `Topic`
            // header) by topic and key, for the few messages that have one.
            try db.execute(sql: """
                CREATE TABLE push_topics (
                    name TEXT PRIMARY KEY,
                    vapid_key TEXT,
                    last_subscribed INTEGER NOT NULL,
                    created INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE push_messages (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    topic TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    body BLOB NOT NULL,
                    urgency TEXT,
                    replace_key TEXT
                );
                CREATE INDEX push_messages_by_topic ON push_messages (topic, sequence);
                CREATE INDEX push_messages_by_expiry ON push_messages (expires_at);
                CREATE INDEX push_messages_replaceable ON push_messages (topic, replace_key) WHERE replace_key IS NOT NULL;
                """)
        }
        return migrator
    }
}
