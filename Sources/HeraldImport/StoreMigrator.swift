import Foundation
import HeraldCore
import HeraldStore
import Logging

/// Copies one Herald store into another (`herald migrate`): subscribers with their ids, badges,
/// failure counters and subscriptions, statistics, publish jobs, queued deliveries, feedback and
/// dead letters, then verifies the copy by counting both.
///
/// Every kind is read in keyset pages of ``batchSize`` rows (``StoreExport``) and written with one
/// store call per page (``SubscriberImport``, ``WorkImport``), the next page being read while the
/// previous one is written. Everything keeps its id, and a row already in the destination is left
/// (or, for subscribers, made equal to the source), so a migration that stopped can be run again.
/// The source should not change meanwhile: stop the server that uses it first.
public struct StoreMigrator: Sendable {
    /// The store read: its pages, dead letters and counts.
    public let source: any StoreExport & DeadLetterStore & WorkImport & StoreHealth
    /// The store written: one call per page, and its counts.
    public let destination: any SubscriberImport & WorkImport & StoreHealth
    /// Rows per page read and per store call written.
    public let batchSize: Int
    private let logger: Logger

    /// Creates a migrator; nothing is read until ``run(progress:)``.
    public init(
        source: any StoreExport & DeadLetterStore & WorkImport & StoreHealth, destination: any SubscriberImport & WorkImport & StoreHealth,
        batchSize: Int = 2_000, logger: Logger
    ) {
        self.source = source
        self.destination = destination
        self.batchSize = max(1, batchSize)
        self.logger = logger
    }

    /// Copies everything, calling `progress` after every page, and returns the verified report.
    ///
    /// Throws only when a store fails; a count that differs, or a source that changed meanwhile, is
    /// reported (``StoreMigrationReport/verified``).
    public func run(progress: @escaping @Sendable (StoreMigrationProgress) -> Void = { _ in }) async throws(StoreMigrationError)
        -> StoreMigrationReport
    {
        let start = ContinuousClock.now
        let before = try await Self.reading { try await source.counts() }
        let feedbackBefore = try await Self.reading { try await source.feedbackCount() }
        let total = before.subscribers + before.events + before.jobs + before.retries + feedbackBefore + before.deadLetters
        var report = StoreMigrationReport()
        var done = 0
        var written = 0
        var skipped = 0
        func advance(_ kind: StoreMigrationKind, read: Int, new: Int, refused: Int = 0) {
            done += read
            written += new
            skipped += read - new
            report.lines[kind, default: .init()].written += new
            report.lines[kind, default: .init()].skipped += read - new
            report.lines[kind, default: .init()].refused += refused
            progress(StoreMigrationProgress(
                kind: kind, done: done, total: total, written: written, skipped: skipped, elapsed: Self.seconds(since: start)))
        }
        logger.info("migrating", metadata: ["rows": "\(total)", "batch": "\(batchSize)"])

        // Subscribers (badges, failure counters and subscriptions with them). Conflicted ids are
        // kept: their queued deliveries cannot be written either.
        var conflicted: Set<SubscriberID> = []
        try await copyPages(
            read: { cursor in try await source.exportSubscribers(after: cursor, limit: batchSize) }, key: { $0.id }
        ) { page in
            let result = try await destination.importSubscribers(page)
            conflicted.formUnion(result.conflicts)
            for id in result.conflicts.prefix(StoreMigrationReport.exampleLimit - report.conflictExamples.count) {
                report.conflictExamples.append(id.rawValue)
            }
            let subscriptions = page.reduce(0) { $0 + $1.subscriptions.count }
            let refusedSubscriptions = page.filter { result.conflicts.contains($0.id) }.reduce(0) { $0 + $1.subscriptions.count }
            report.lines[.subscriptions, default: .init()].written += result.subscriptions
            report.lines[.subscriptions, default: .init()].skipped += subscriptions - result.subscriptions
            report.lines[.subscriptions, default: .init()].refused += refusedSubscriptions
            advance(.subscribers, read: page.count, new: result.inserted + result.updated, refused: result.conflicts.count)
        }
        try await copyPages(
            read: { cursor in try await source.exportEventStatistics(after: cursor, limit: batchSize) }, key: { $0.event }
        ) { page in
            let written = try await destination.importEventStatistics(page).count
            advance(.events, read: page.count, new: written, refused: page.count - written)
        }
        // Receipts before jobs and deliveries: a scheduled publish is accepted work, and a job's
        // receipt should exist when another node of the destination settles its first outcomes.
        try await copyPages(read: { cursor in try await source.exportPublishes(after: cursor, limit: batchSize) }, key: { $0.status.id }) {
            page in
            advance(.publishes, read: page.count, new: try await destination.importPublishes(page))
        }
        try await copyPages(read: { cursor in try await source.exportPublishJobs(after: cursor, limit: batchSize) }, key: { $0.id }) { page in
            advance(.jobs, read: page.count, new: try await destination.importPublishJobs(page))
        }
        try await copyPages(
            read: { cursor in try await source.exportQueuedDeliveries(after: cursor, limit: batchSize) }, key: { $0.id }
        ) { page in
            let refused = page.count(where: { $0.subscriberID.map(conflicted.contains) ?? false })
            advance(.deliveries, read: page.count, new: try await destination.importQueuedDeliveries(page), refused: refused)
        }
        try await copyPages(read: { cursor in try await source.exportFeedback(after: cursor, limit: batchSize) }, key: { $0.entry.id }) { page in
            advance(.feedback, read: page.count, new: try await destination.importFeedback(page))
        }
        try await copyPages(
            read: { cursor in try await source.deadLetters(matching: DeadLetterFilter(), after: cursor, limit: batchSize) }, key: { $0.id }
        ) { page in
            advance(.deadLetters, read: page.count, new: try await destination.importDeadLetters(page))
        }

        let after = try await Self.reading { try await source.counts() }
        let feedbackAfter = try await Self.reading { try await source.feedbackCount() }
        let found: StoreCounts
        let feedbackFound: Int
        do {
            found = try await destination.counts()
            feedbackFound = try await destination.feedbackCount()
        } catch {
            throw .destination(error)
        }
        report.verify(source: after, destination: found)
        report.lines[.feedback, default: .init()].source = feedbackAfter
        report.lines[.feedback, default: .init()].destination = feedbackFound
        report.sourceChanged = after != before || feedbackAfter != feedbackBefore
        report.elapsed = Self.seconds(since: start)
        logger.info(
            "migrated",
            metadata: [
                "written": "\(written)", "skipped": "\(skipped)", "mismatches": "\(report.mismatches.count)",
                "source_changed": "\(report.sourceChanged)",
            ])
        return report
    }

    /// Reads pages after a cursor until an empty one, reading the next page while `write` writes
    /// the previous one, so that each side waits on the other as little as possible.
    private func copyPages<Row: Sendable, Key: Sendable>(
        read: @escaping @Sendable (Key?) async throws -> [Row], key: (Row) -> Key,
        write: ([Row]) async throws -> Void
    ) async throws(StoreMigrationError) {
        var next = Task { try await read(nil) }
        while true {
            let page: [Row]
            do {
                page = try await next.value
            } catch {
                throw .source(error)
            }
            guard let last = page.last else { return }
            let cursor = key(last)
            next = Task { try await read(cursor) }
            do {
                try await write(page)
            } catch {
                next.cancel()
                throw .destination(error)
            }
        }
    }

    /// Seconds from `start` to now.
    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Runs a read of the source, naming it as the failing side.
    private static func reading<T>(_ body: () async throws -> T) async throws(StoreMigrationError) -> T {
        do {
            return try await body()
        } catch {
            throw .source(error)
        }
    }
}
