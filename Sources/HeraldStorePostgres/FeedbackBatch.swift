import HeraldStore

/// Feedback entries as one JSON document for `jsonb_to_recordset`, in order (`n`).
struct FeedbackBatch: Encodable, Sendable {
    struct Row: Encodable, Sendable {
        var n: Int
        var time: Int64
        var subscriber_id: String?
        var proto: String
        var token: String
        var status: Int?
        var reason: String
        var action: String
        var replacement: String?
        var origin: String
        var reference: String?
        var invalid_since: Int64?
        /// The entry's id and whether it was taken: read only by ``PostgresStore/importFeedback(_:)``.
        var id: Int64 = 0
        var taken = false
    }

    var rows: [Row]

    init(_ entries: [FeedbackEntry]) {
        rows = entries.enumerated().map { n, entry in
            Row(
                n: n, time: entry.time, subscriber_id: entry.subscriberID?.rawValue, proto: entry.proto, token: entry.token,
                status: entry.status, reason: entry.reason, action: entry.action.rawValue, replacement: entry.replacement,
                origin: entry.origin.rawValue, reference: entry.reference, invalid_since: entry.invalidSince)
        }
    }

    /// Entries as another store kept them, with their ids and `taken` flags.
    init(_ imported: [ImportedFeedback]) {
        self.init(imported.map(\.entry))
        for (n, entry) in imported.enumerated() {
            rows[n].id = entry.entry.id
            rows[n].taken = entry.taken
        }
    }

    func encode(to encoder: any Encoder) throws {
        try rows.encode(to: encoder)
    }
}
