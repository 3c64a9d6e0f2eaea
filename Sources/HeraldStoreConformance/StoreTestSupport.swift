import HeraldCore
import HeraldStore
import Testing

// Fixtures of the checks. Internal: a backend's own tests that want them (the SQLite tests do)
// reach them with `@testable import HeraldStoreConformance`, and importers see only the checks.

/// Opens a fresh store of `backend`, runs `body` with it and closes it, also when `body` throws.
func withStore(_ backend: StoreBackend, _ body: (any HeraldStore) async throws -> Void) async throws {
    let store = try await backend.make()
    do {
        try await body(store)
    } catch {
        try? await store.close()
        throw error
    }
    try await store.close()
}

/// Fixed clock values: the store never reads the clock itself.
enum TestTime {
    /// Unix seconds used as "now" by default.
    static let t0: Int64 = 1_700_000_000
}

/// An APNs-style registration with a distinct 64-hex-digit token per `n`.
func apns(_ n: Int, proto: String = "apns", fields: SubscriberFields = .init()) -> SubscriberRegistration {
    let hex = String(n, radix: 16)
    let token = String(repeating: "0", count: 64 - hex.count) + hex
    return SubscriberRegistration(proto: proto, token: token, fields: fields)
}

/// Registers `count` subscribers and returns their ids in registration order.
func registerMany(_ store: any HeraldStore, count: Int, now: Int64 = TestTime.t0) async throws -> [SubscriberID] {
    var ids: [SubscriberID] = []
    ids.reserveCapacity(count)
    for n in 0..<count {
        ids.append(try await store.register(apns(n), now: now).subscriber.id)
    }
    return ids
}

/// A compiled notification with a message and some data, so that a round trip through storage is meaningful.
func sampleNotification(_ event: String = "sport") -> HeraldCore.PublishedEvent {
    HeraldCore.PublishedEvent(
        event: event,
        title: LocalizedText(["default": "Title", "fr": "Titre"]),
        message: LocalizedText(["default": "Hello"]),
        data: ["b": "2", "a": "1"],
        sound: "ping.aiff",
        badge: "7",
        incrementBadge: false,
        contentAvailable: true,
        ttl: 3600,
        priority: .high,
        collapseKey: "score"
    )
}

/// An event name known to be valid.
func event(_ raw: String) -> EventName {
    guard let name = EventName(raw) else { fatalError("invalid test event name \(raw)") }
    return name
}

/// A retry for `id` due at `dueAt`.
func retry(_ id: SubscriberID, dueAt: Int64, statistics: EventName? = nil, attempts: Int = 1) -> QueuedDelivery {
    QueuedDelivery(
        subscriberID: id, statisticsEvent: statistics, notification: sampleNotification(), silent: true, badge: 4,
        attempts: attempts, dueAt: dueAt, publishedAt: TestTime.t0, lastReason: "InternalServerError"
    )
}

/// Reads a whole audience page by page.
func readAudience(_ store: any HeraldStore, of job: PublishJob, pageSize: Int) async throws -> (members: [AudienceMember], pages: Int) {
    var members: [AudienceMember] = []
    var cursor: SubscriberID?
    var pages = 0
    while true {
        let page = try await store.audience(of: job, after: cursor, limit: pageSize)
        if page.isEmpty { break }
        pages += 1
        #expect(page.count <= pageSize)
        members += page
        cursor = page.last?.subscriber.id
        if pages > 10_000 { Issue.record("audience paging does not end"); break }
    }
    return (members, pages)
}

/// Claims the one job a test just enqueued.
func claimOnlyJob(_ store: any HeraldStore, owner: String = "worker-a") async throws -> PublishJob {
    let jobs = try await store.claimJobs(limit: 10, lease: Lease(owner: owner, expiresAt: 10_000), nowMillis: 1_000)
    try #require(jobs.count == 1)
    return jobs[0]
}

extension StoreCounts {
    /// Nothing at all.
    static let empty = StoreCounts(subscribers: 0, subscriptions: 0, events: 0, jobs: 0, retries: 0)
}
