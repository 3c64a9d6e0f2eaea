import HeraldStore
import Testing

/// UnifiedPush (`UnifiedPushStore`): topics created and bound to one VAPID key, messages kept with
/// their bytes until they expire, read after every kind of cursor, replaced by their `Topic` key,
/// and pruned with the topics nobody uses any more.
public enum UnifiedPushConformance {
    /// A day: messages of the checks expire well after every `now` they are read at, unless a
    /// check says otherwise.
    static let day: Int64 = 86_400

    /// A body with every kind of byte a text column would mangle: NUL, 0xFF, invalid UTF-8, a newline.
    static let binaryBody: [UInt8] = [0x00, 0xFF, 0xC3, 0x28, 0x0A, 0x80, 0x7F, 0x00]

    /// A message of `topic`, accepted at `time`; distinct bodies per id, so that a mixed-up row shows.
    static func message(
        _ id: String, topic: String = "up-a", time: Int64 = TestTime.t0, expiresAt: Int64? = nil, body: [UInt8]? = nil,
        urgency: String? = nil, replaceKey: String? = nil
    ) -> PushMessage {
        PushMessage(
            id: id, topic: topic, time: time, expiresAt: expiresAt ?? time + day, body: body ?? Array(id.utf8), urgency: urgency,
            replaceKey: replaceKey)
    }

    /// `messages` as stored but for their sequences, which the store assigns: what a read returns
    /// compared with what was stored.
    static func unsequenced(_ messages: [PushMessage]) -> [PushMessage] {
        messages.map { message in
            var message = message
            message.sequence = 0
            return message
        }
    }

    /// Stores `messages` in order.
    static func storeAll(_ messages: [PushMessage], in store: any HeraldStore) async throws {
        for message in messages {
            try await store.storeMessage(message)
        }
    }

    /// The ids `store` returns for `topics` after `cursor` at `now`.
    static func ids(
        _ store: any HeraldStore, _ topics: [String] = ["up-a"], after cursor: PushCursor = .all, now: Int64 = TestTime.t0,
        limit: Int = 100
    ) async throws -> [String] {
        try await store.messages(of: topics, after: cursor, now: now, limit: limit).map(\.id)
    }

    /// a topic is created unbound or bound, keeps the first key it is bound to, and subscribing or touching it marks it subscribed
    public static func topics(_ backend: StoreBackend) async throws {
        let t0 = TestTime.t0
        try await withStore(backend) { store async throws in
            #expect(try await store.pushTopic("up-a") == nil)
            let created = PushTopic(name: "up-a", vapidKey: nil, lastSubscribed: t0, created: t0)
            #expect(try await store.subscribeTopic("up-a", vapidKey: nil, now: t0) == created)
            #expect(try await store.pushTopic("up-a") == created)

            let bound = PushTopic(name: "up-a", vapidKey: "key-1", lastSubscribed: t0 + 1, created: t0)
            #expect(try await store.subscribeTopic("up-a", vapidKey: "key-1", now: t0 + 1) == bound, "an unbound topic is bound")
            let other = PushTopic(name: "up-a", vapidKey: "key-1", lastSubscribed: t0 + 2, created: t0)
            #expect(try await store.subscribeTopic("up-a", vapidKey: "key-2", now: t0 + 2) == other, "another key does not replace it")
            let unkeyed = PushTopic(name: "up-a", vapidKey: "key-1", lastSubscribed: t0 + 3, created: t0)
            #expect(try await store.subscribeTopic("up-a", vapidKey: nil, now: t0 + 3) == unkeyed, "no key does not unbind it")
            #expect(try await store.pushTopic("up-a") == unkeyed)

            let second = PushTopic(name: "up-b", vapidKey: "key-b", lastSubscribed: t0 + 4, created: t0 + 4)
            #expect(try await store.subscribeTopic("up-b", vapidKey: "key-b", now: t0 + 4) == second, "a topic bound at its creation")

            try await store.touchTopics([], now: t0 + 5)
            #expect(try await store.pushTopic("up-a") == unkeyed, "an empty touch changes nothing")
            try await store.touchTopics(["up-a", "up-b", "unknown"], now: t0 + 10)
            #expect(try await store.pushTopic("up-a") == PushTopic(name: "up-a", vapidKey: "key-1", lastSubscribed: t0 + 10, created: t0))
            #expect(try await store.pushTopic("up-b") == PushTopic(name: "up-b", vapidKey: "key-b", lastSubscribed: t0 + 10, created: t0 + 4))
            #expect(try await store.pushTopic("unknown") == nil, "touching does not create a topic")
            try await store.touchTopics(["up-b"], now: t0 + 20)
            #expect(try await store.pushTopic("up-a") == PushTopic(name: "up-a", vapidKey: "key-1", lastSubscribed: t0 + 10, created: t0))
            #expect(try await store.pushTopic("up-b") == PushTopic(name: "up-b", vapidKey: "key-b", lastSubscribed: t0 + 20, created: t0 + 4))
        }
    }

    /// messages round-trip with their bytes (NUL and 0xFF included, or none), urgency and key, each with a sequence larger than the last
    public static func messagesRoundTrip(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let stored = [
                message("m1", body: binaryBody, urgency: "high"),
                message("m2", time: TestTime.t0 + 1, body: []),
                message("m3", time: TestTime.t0 + 2, body: [0xFF], urgency: "very-low", replaceKey: "score"),
            ]
            try await storeAll(stored, in: store)
            let read = try await store.messages(of: ["up-a"], after: .all, now: TestTime.t0, limit: 10)
            #expect(unsequenced(read) == stored)
            #expect(read.allSatisfy { $0.sequence > 0 }, "a stored message has its sequence")
            #expect(read.map(\.sequence) == read.map(\.sequence).sorted() && Set(read.map(\.sequence)).count == read.count,
                "sequences increase in the order messages were stored")
        }
    }

    /// every cursor reads what it promises, oldest first and at most the limit: all, after a sequence, since a time, after a known or an unknown id
    public static func cursors(_ backend: StoreBackend) async throws {
        let t0 = TestTime.t0
        try await withStore(backend) { store async throws in
            // m6 is stored last but accepted earliest (another node's clock): `since` goes by time, the others by sequence.
            let stored = [
                message("m1", time: t0), message("m2", time: t0 + 10), message("m3", time: t0 + 20), message("m4", time: t0 + 30),
                message("m5", time: t0 + 40), message("m6", time: t0 + 5),
            ]
            try await storeAll(stored, in: store)

            #expect(try await ids(store) == ["m1", "m2", "m3", "m4", "m5", "m6"])
            #expect(try await ids(store, limit: 0).isEmpty)
            #expect(try await ids(store, []).isEmpty, "no topics")

            // Page through with the sequence of the last message read.
            var pages: [[String]] = []
            var cursor = PushCursor.all
            while true {
                let page = try await store.messages(of: ["up-a"], after: cursor, now: t0, limit: 4)
                guard let last = page.last else { break }
                pages.append(page.map(\.id))
                cursor = .afterSequence(last.sequence)
            }
            #expect(pages == [["m1", "m2", "m3", "m4"], ["m5", "m6"]])
            #expect(try await ids(store, after: .afterSequence(0)) == ["m1", "m2", "m3", "m4", "m5", "m6"])

            #expect(try await ids(store, after: .since(t0 + 20)) == ["m3", "m4", "m5"], "at or after the time, whatever the sequence")
            #expect(try await ids(store, after: .since(t0 + 21)) == ["m4", "m5"])
            #expect(try await ids(store, after: .since(t0 + 5), limit: 2) == ["m2", "m3"])
            #expect(try await ids(store, after: .since(t0 + 41)).isEmpty)

            #expect(try await ids(store, after: .afterID("m2")) == ["m3", "m4", "m5", "m6"])
            #expect(try await ids(store, after: .afterID("m2"), limit: 1) == ["m3"])
            #expect(try await ids(store, after: .afterID("m6")).isEmpty, "after the last message")
            #expect(try await ids(store, after: .afterID("unknown")) == ["m1", "m2", "m3", "m4", "m5", "m6"], "an unknown id reads all")
        }
    }

    /// a read returns the messages of the topics it names only, interleaved in the order they were stored
    public static func topicsFilter(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let stored = [
                message("a1", topic: "up-a"), message("b1", topic: "up-b"), message("a2", topic: "up-a"),
                message("c1", topic: "up-c"), message("b2", topic: "up-b"),
            ]
            try await storeAll(stored, in: store)
            #expect(try await ids(store, ["up-a"]) == ["a1", "a2"])
            #expect(try await ids(store, ["up-b"]) == ["b1", "b2"])
            #expect(try await ids(store, ["up-b", "up-a"]) == ["a1", "b1", "a2", "b2"])
            #expect(try await ids(store, ["up-a", "up-b"], limit: 3) == ["a1", "b1", "a2"])
            #expect(try await ids(store, ["unknown"]).isEmpty)
            // A cursor from one topic's message reads on in the others.
            #expect(try await ids(store, ["up-a", "up-b"], after: .afterID("b1")) == ["a2", "b2"])
            #expect(try await ids(store, ["up-b"], after: .afterID("a2")) == ["b2"])
        }
    }

    /// a message with a key replaces the unexpired one of its topic with that key, and no other; the replacement is read after the rest
    public static func replacement(_ backend: StoreBackend) async throws {
        let t0 = TestTime.t0
        try await withStore(backend) { store async throws in
            try await storeAll([
                message("a1", topic: "up-a", replaceKey: "score"),
                message("b1", topic: "up-b", replaceKey: "score"),
                message("a2", topic: "up-a", replaceKey: "other"),
                message("a3", topic: "up-a"),
            ], in: store)
            let replacing = message("a4", topic: "up-a", time: t0 + 10, body: binaryBody, replaceKey: "score")
            try await store.storeMessage(replacing)
            #expect(try await ids(store, ["up-a"], now: t0 + 10) == ["a2", "a3", "a4"], "a1 is replaced, and a4 comes last")
            #expect(try await ids(store, ["up-b"], now: t0 + 10) == ["b1"], "the same key in another topic is another message")
            let read = try await store.messages(of: ["up-a"], after: .afterID("a3"), now: t0 + 10, limit: 10)
            #expect(unsequenced(read) == [replacing])

            // A message that has expired when the next of its key is accepted is not replaced: it
            // stays, unread, until it is pruned.
            try await store.storeMessage(message("a5", topic: "up-a", time: t0 + 10, expiresAt: t0 + 20, replaceKey: "late"))
            try await store.storeMessage(message("a6", topic: "up-a", time: t0 + 30, replaceKey: "late"))
            #expect(try await ids(store, ["up-a"], now: t0 + 15) == ["a2", "a3", "a4", "a5", "a6"], "read before a5 expired")
            #expect(try await ids(store, ["up-a"], now: t0 + 30) == ["a2", "a3", "a4", "a6"])
            #expect(try await store.pruneUnifiedPush(now: t0 + 30, idleBefore: t0) == 1, "a5 was kept until pruned")

            // Replacing the replacement.
            try await store.storeMessage(message("a7", topic: "up-a", time: t0 + 40, replaceKey: "score"))
            #expect(try await ids(store, ["up-a"], now: t0 + 40) == ["a2", "a3", "a6", "a7"])
        }
    }

    /// a message is returned while its expiry is after `now`, and not from its expiry on, whatever the cursor
    public static func expiry(_ backend: StoreBackend) async throws {
        let t0 = TestTime.t0
        try await withStore(backend) { store async throws in
            try await storeAll([
                message("m1", expiresAt: t0 + 10), message("m2", expiresAt: t0 + 20), message("m3", expiresAt: t0 + 10),
            ], in: store)
            #expect(try await ids(store, now: t0 + 9) == ["m1", "m2", "m3"])
            #expect(try await ids(store, now: t0 + 10) == ["m2"], "expired at its expiry")
            #expect(try await ids(store, now: t0 + 10, limit: 1) == ["m2"], "the limit counts unexpired messages only")
            #expect(try await ids(store, after: .since(t0), now: t0 + 10) == ["m2"])
            #expect(try await ids(store, after: .afterID("m1"), now: t0 + 10) == ["m2"], "an expired message still places its id")
            #expect(try await ids(store, now: t0 + 20).isEmpty)
        }
    }

    /// pruning deletes expired messages and the topics idle since the given time with no message left, and keeps the rest
    public static func pruning(_ backend: StoreBackend) async throws {
        let t0 = TestTime.t0
        try await withStore(backend) { store async throws in
            for name in ["idle-empty", "idle-live", "idle-expired"] {
                _ = try await store.subscribeTopic(name, vapidKey: nil, now: t0)
            }
            _ = try await store.subscribeTopic("boundary", vapidKey: nil, now: t0 + 150)
            _ = try await store.subscribeTopic("recent-empty", vapidKey: nil, now: t0 + 200)
            try await storeAll([
                message("live", topic: "idle-live", expiresAt: t0 + 1_000),
                message("gone-1", topic: "idle-expired", expiresAt: t0 + 50),
                message("gone-2", topic: "idle-expired", expiresAt: t0 + 100),
                message("recent", topic: "recent-empty", expiresAt: t0 + 100),
            ], in: store)

            #expect(try await store.pruneUnifiedPush(now: t0 + 100, idleBefore: t0 + 150) == 3, "expired at or before now")
            #expect(try await store.pushTopic("idle-empty") == nil, "idle with no message")
            #expect(try await store.pushTopic("idle-expired") == nil, "idle, its last message expired in the same prune")
            #expect(try await store.pushTopic("idle-live") != nil, "idle but with a live message")
            #expect(try await store.pushTopic("boundary") != nil, "subscribed at the idle bound")
            #expect(try await store.pushTopic("recent-empty") != nil, "subscribed since")
            #expect(try await ids(store, ["idle-live", "idle-expired", "recent-empty"], now: t0) == ["live"], "expired messages are gone")

            #expect(try await store.pruneUnifiedPush(now: t0 + 100, idleBefore: t0 + 150) == 0, "nothing left to prune")
            #expect(try await store.pruneUnifiedPush(now: t0 + 1_000, idleBefore: t0 + 300) == 1)
            for name in ["idle-live", "boundary", "recent-empty"] {
                #expect(try await store.pushTopic(name) == nil, "\(name) is idle and empty at last")
            }
        }
    }
}
