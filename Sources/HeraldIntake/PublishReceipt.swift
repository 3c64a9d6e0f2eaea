/// What an accepted publish is known by.
public struct PublishReceipt: Sendable, Equatable {
    /// The publish's id (32 hex digits), stored with its content: the `Herald-Publish-Id` header,
    /// the key of `GET /publishes/<id>`, and the base of every `webhook-id` its deliveries carry.
    public var id: String
    /// The publish job's row, or `nil` when nobody was subscribed (listeners were still served),
    /// when it is scheduled, or for a repeat.
    public var jobID: Int64?
    /// When a scheduled publish is due (Unix seconds); `nil` for an immediate one.
    public var dueAt: Int64?
    /// Whether this answers a repeat under the same idempotency key (nothing was published).
    public var repeated: Bool

    /// Creates a receipt.
    public init(id: String, jobID: Int64?, dueAt: Int64? = nil, repeated: Bool = false) {
        self.id = id
        self.jobID = jobID
        self.dueAt = dueAt
        self.repeated = repeated
    }
}
