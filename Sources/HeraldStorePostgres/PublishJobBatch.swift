import HeraldCore
import HeraldStore

/// Publish jobs as one JSON document of rows and each distinct content once in two parallel
/// arrays the rows point into (1-based), for one `INSERT … SELECT` (``PostgresStore/importPublishJobs(_:)``).
struct PublishJobBatch: Sendable {
    struct Row: Encodable, Sendable {
        var c: Int
        var id: Int64
        var audience_kind: String
        var audience_value: String?
        var origin: String
        var published_at: Int64
        var cursor: String?
        var pending: String?
        var end_id: String?
        var publish_id: String?
    }

    var rows: [Row] = []
    var contents = DistinctContents()

    /// Encodes `jobs`, each distinct content once.
    init(_ jobs: [PublishJob]) throws {
        rows.reserveCapacity(jobs.count)
        for job in jobs {
            let (kind, value) = try PostgresStore.storedAudience(job.audience)
            rows.append(Row(
                c: try contents.position(of: job.content), id: job.id, audience_kind: kind, audience_value: value,
                origin: job.origin.rawValue, published_at: job.publishedAt, cursor: job.cursor?.rawValue,
                pending: try PendingMembersCodec.text(job.pending), end_id: job.end?.rawValue, publish_id: job.receiptID))
        }
    }
}
