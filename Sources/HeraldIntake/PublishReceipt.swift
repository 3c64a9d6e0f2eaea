/// What an accepted publish is known by.
public struct PublishReceipt: Sendable, Equatable {
    /// The publish's id (32 hex digits), stored with its content: the `Herald-Publish-Id` header,
    /// and the base of every `webhook-id` its deliveries carry.
    public var id: String
    /// The publish job's row, or `nil` when nobody was subscribed (listeners were still served).
    public var jobID: Int64?

    /// Creates a receipt.
    public init(id: String, jobID: Int64?) {
        self.id = id
        self.jobID = jobID
    }
}
