/// UnifiedPush (the ntfy-compatible push server): topics that distributor apps subscribe to, and
/// the messages app servers post to them, kept until their TTL so that a distributor that was
/// away replays what it missed.
///
/// Messages are read in the order they were stored, by a `sequence` the store assigns: a reader
/// holding the last sequence it saw continues with ``PushCursor/afterSequence(_:)`` and misses
/// nothing stored after it, whichever node stored it. The store never reads the clock: every
/// method that compares times takes `now`.
public protocol UnifiedPushStore: Sendable {
    /// Creates the topic when it does not exist and marks it subscribed at `now` (Unix seconds); binds it to `vapidKey`
    /// (base64url application server key) when one is given and the topic has none yet. Returns the topic as stored.
    func subscribeTopic(_ name: String, vapidKey: String?, now: Int64) async throws -> PushTopic

    /// Marks topics subscribed at `now` (a connected subscriber's periodic touch), one statement for all.
    /// Names not stored are ignored; an empty list is a no-op.
    func touchTopics(_ names: [String], now: Int64) async throws

    /// The topic, or nil.
    func pushTopic(_ name: String) async throws -> PushTopic?

    /// Stores a message; when `message.replaceKey` (the RFC 8030 `Topic` header) is set, a stored message of the same
    /// topic with the same replaceKey that has not expired is deleted in the same transaction. Ids are assigned by the
    /// caller (opaque strings). Returns nothing.
    ///
    /// "Not expired" is reckoned at the message's own `time`, when it was accepted; the store
    /// ignores `message.sequence` and assigns the next one.
    func storeMessage(_ message: PushMessage) async throws

    /// Messages of `topics` stored after `cursor`, oldest first, at most `limit`, not expired at `now` (expiresAt > now).
    ///
    /// Each comes back with its ``PushMessage/sequence`` set, so that the caller continues with
    /// ``PushCursor/afterSequence(_:)``. No topics or a `limit` below 1 read nothing.
    func messages(of topics: [String], after cursor: PushCursor, now: Int64, limit: Int) async throws -> [PushMessage]

    /// Deletes expired messages (expiresAt <= now) and topics not subscribed since `idleBefore` with no message left;
    /// returns how many messages were deleted.
    func pruneUnifiedPush(now: Int64, idleBefore: Int64) async throws -> Int
}
