import HeraldCore
import HeraldStore

extension Intake {
    /// Creates the topics that do not exist and marks them subscribed now; binds each to
    /// `vapidKey` when given and it has no key yet (UnifiedPush, issue 42).
    /// - Returns: the topics as stored, in the order asked.
    public func subscribeToPushTopics(_ names: [String], vapidKey: String?) async throws(IntakeError) -> [PushTopic] {
        let now = clock.nowSeconds()
        var topics: [PushTopic] = []
        for name in names {
            topics.append(try await committing("cannot store a UnifiedPush topic") { try await store.subscribeTopic(name, vapidKey: vapidKey, now: now) })
        }
        return topics
    }

    /// Marks topics subscribed now (connected subscribers keep their topics alive); a failure is
    /// only logged: the next touch tries again.
    public func touchPushTopics(_ names: [String]) async {
        _ = try? await committing("cannot touch UnifiedPush topics") { try await store.touchTopics(names, now: clock.nowSeconds()) }
    }

    /// The topic, or `nil`.
    public func pushTopic(_ name: String) async throws(IntakeError) -> PushTopic? {
        try await committing { try await store.pushTopic(name) }
    }

    /// Stores a pushed message durably (answered 201 only after this returns).
    public func storePushMessage(_ message: PushMessage) async throws(IntakeError) {
        try await gate.admit()
        try await committing("cannot store a UnifiedPush message") { try await store.storeMessage(message) }
    }

    /// Stored messages of `topics` after `cursor`, oldest first, not expired.
    public func pushMessages(of topics: [String], after cursor: PushCursor, limit: Int) async throws(IntakeError) -> [PushMessage] {
        try await committing { try await store.messages(of: topics, after: cursor, now: clock.nowSeconds(), limit: limit) }
    }

    /// Deletes expired messages and topics idle since `idleBefore` (Unix seconds) with nothing left.
    public func prunePushMessages(idleBefore: Int64) async throws(IntakeError) -> Int {
        try await committing { try await store.pruneUnifiedPush(now: clock.nowSeconds(), idleBefore: idleBefore) }
    }
}
