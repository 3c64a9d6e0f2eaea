import HeraldStore

/// Imported subscribers as one JSON document for `jsonb_to_recordset` (their optional fields
/// may be null, which `unnest` arrays cannot carry).
struct SubscriberImportBatch: Encodable, Sendable {
    struct Row: Encodable, Sendable {
        var id: String
        var proto: String
        var token: String
        var identity: String
        var lang: String?
        var badge: String?
        var version: String?
        var category: String?
        var content_available: String?
        var created: Int64
        var updated: Int64
        var failures: Int
    }

    var rows: [Row]

    init(_ subscribers: [ImportedSubscriber]) {
        rows = subscribers.map { subscriber in
            Row(
                id: subscriber.id.rawValue, proto: subscriber.proto, token: subscriber.token, identity: subscriber.identity,
                lang: subscriber.fields.lang, badge: subscriber.fields.badge, version: subscriber.fields.version,
                category: subscriber.fields.category, content_available: subscriber.fields.contentAvailable,
                created: subscriber.created, updated: subscriber.updated, failures: subscriber.failures)
        }
    }

    func encode(to encoder: any Encoder) throws {
        try rows.encode(to: encoder)
    }
}
