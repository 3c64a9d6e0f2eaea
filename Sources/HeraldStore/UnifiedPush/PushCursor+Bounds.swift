extension PushCursor {
    /// The cursor as the bounds of a store's one-statement read: an id whose sequence is looked
    /// up (`nil`: none), the sequence to read after when there is no id or it is unknown, and the
    /// earliest time. Both backends read by these, so they agree on what each cursor means.
    public var bounds: (afterID: String?, afterSequence: Int64, since: Int64) {
        switch self {
        case .all: (nil, 0, Int64.min)
        case .afterSequence(let sequence): (nil, sequence, Int64.min)
        case .since(let time): (nil, 0, time)
        case .afterID(let id): (id, 0, Int64.min)
        }
    }
}
