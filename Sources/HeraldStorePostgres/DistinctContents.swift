import HeraldCore

/// Each distinct content of a batch once, as two parallel arrays (its stored text, and whether it
/// is a prepared payload rather than a notification) that a batch's rows point into, 1-based,
/// for `unnest(…) WITH ORDINALITY`: a fan-out's thousands of rows share one content.
struct DistinctContents: Sendable {
    /// The distinct contents' stored text.
    private(set) var texts: [String] = []
    /// Whether each content is a prepared payload (else a notification).
    private(set) var isPayload: [Bool] = []
    private var index: [DeliveryContent: Int] = [:]

    /// The 1-based position of `content`, added (encoded once) if it is new.
    mutating func position(of content: DeliveryContent) throws -> Int {
        if let known = index[content] { return known }
        let stored = try PostgresCodec.encode(content)
        texts.append(stored.notification ?? stored.payload ?? "")
        isPayload.append(stored.notification == nil)
        index[content] = texts.count
        return texts.count
    }
}
