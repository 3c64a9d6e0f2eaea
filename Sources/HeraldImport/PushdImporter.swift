import Foundation
import HeraldCore
import HeraldRedis
import HeraldStore

/// Reads an rs/pushd Redis database into Herald's store (pushd-api.md §15).
///
/// Subscribers are read in batches in id order (`ZRANGEBYLEX subscribers`: rs/pushd gives every
/// member the score 0, so the order is the ids' and the paging survives a database that changes
/// meanwhile), each batch with one pipeline of `HGETALL` and `ZRANGE … WITHSCORES` and one
/// `HMGET tokenmap`, and written with one store call while the next batch is read. Memory
/// holds a batch or two, however large the database. Event statistics follow, by `SCAN`.
public struct PushdImporter: Sendable {
    private let redis: RedisConnection
    private let store: (any SubscriberImport)?
    private let options: PushdImportOptions

    /// Creates an importer reading `redis`; it writes to `store` unless ``PushdImportOptions/dryRun`` is set.
    public init(redis: RedisConnection, store: (any SubscriberImport)?, options: PushdImportOptions) {
        self.redis = redis
        self.store = options.dryRun ? nil : store
        self.options = options
    }

    /// Runs the import; `progress` is called after every batch.
    ///
    /// - Throws: ``PushdImportError`` when Redis cannot be read or the store cannot be written;
    ///   a malformed record never throws, it is counted in the report.
    public func run(progress: @escaping @Sendable (PushdImportProgress) -> Void = { _ in }) async throws(PushdImportError) -> PushdImportReport {
        do {
            return try await importAll(progress: progress)
        } catch let error as PushdImportError {
            throw error
        } catch let error as RedisError {
            throw .redis(error)
        } catch {
            throw .store(error)
        }
    }

    private func importAll(progress: @escaping @Sendable (PushdImportProgress) -> Void) async throws -> PushdImportReport {
        let start = ContinuousClock.now
        var report = PushdImportReport(dryRun: options.dryRun)
        let total: Int
        switch await Self.attempt({ () async throws(RedisError) -> RedisValue in try await redis.send(["ZCARD", "subscribers"]) }) {
        case .success(let count):
            total = Int(count.integer ?? 0)
        case .failure(let error):
            if error.serverMessage != nil { throw PushdImportError.layout("`subscribers` is not a sorted set (\(error))") }
            throw PushdImportError.redis(error)
        }
        var subscribedEvents: Set<String> = []

        let reader = self
        var next: Task<Batch, any Error>? = Task { try await reader.readBatch(after: nil) }
        defer { next?.cancel() }
        while let pending = next {
            let batch = try await pending.value
            guard let last = batch.ids.last else { break }
            // Redis is read on its connection's thread while the store writes this batch.
            next = batch.ids.count < options.batchSize ? nil : Task { try await reader.readBatch(after: last) }
            try await write(batch, into: &report, subscribedEvents: &subscribedEvents)
            let elapsed = (ContinuousClock.now - start) / .seconds(1)
            progress(PushdImportProgress(
                done: report.subscribersRead, total: max(total, report.subscribersRead), imported: report.subscribersImported,
                skipped: report.subscribersSkipped, elapsed: elapsed))
        }
        try await importEvents(into: &report, subscribedEvents: subscribedEvents)
        return report
    }

    // MARK: - Subscribers

    /// A batch of ids read from `subscribers`, with their records.
    private struct Batch: Sendable {
        var ids: [String]
        var readings: [PushdSubscriberRecord.Reading]
    }

    /// Reads the next batch of ids after `cursor` and their records, and resolves duplicates by `tokenmap`.
    private func readBatch(after cursor: String?) async throws -> Batch {
        let low = cursor.map { "(" + $0 } ?? "-"
        let ids = (try await redis.send(["ZRANGEBYLEX", "subscribers", low, "+", "LIMIT", "0", String(options.batchSize)]).elements ?? [])
            .compactMap(\.text)
        guard !ids.isEmpty else { return Batch(ids: [], readings: []) }
        let records = try await readRecords(ids)
        var readings = records.map { $0.read(options: options) }

        // `tokenmap` says which id owns a `proto:token` (as rs/pushd wrote it, before lower-casing).
        var lookups: [(index: Int, key: String)] = []
        for (index, record) in records.enumerated() where readings[index].subscriber != nil {
            if let proto = record.hash?["proto"], let token = record.hash?["token"] { lookups.append((index, proto + ":" + token)) }
        }
        if !lookups.isEmpty {
            let owners = try await redis.send(["HMGET", "tokenmap"] + lookups.map(\.key)).elements ?? []
            var claimed: [(index: Int, owner: String)] = []
            for (position, lookup) in lookups.enumerated() {
                if let owner = owners.indices.contains(position) ? owners[position].text : nil, owner != ids[lookup.index] {
                    claimed.append((lookup.index, owner))
                }
            }
            if !claimed.isEmpty {
                // Another id wins only if it exists; a `tokenmap` entry naming a deleted subscriber is stale.
                let exists = try await redis.pipeline(claimed.map { ["EXISTS", "subscriber:" + $0.owner] })
                for (position, claim) in claimed.enumerated() where (exists[position].integer ?? 0) > 0 {
                    readings[claim.index] = PushdSubscriberRecord.Reading(skip: .duplicateToken)
                }
            }
        }
        return Batch(ids: ids, readings: readings)
    }

    /// The records of `ids`, with one pipeline; when a key has the wrong type (the pipeline
    /// reports an error reply), command by command so that only that record is lost.
    private func readRecords(_ ids: [String]) async throws -> [PushdSubscriberRecord] {
        var commands: [[String]] = []
        commands.reserveCapacity(ids.count * 2)
        for id in ids {
            commands.append(["HGETALL", "subscriber:" + id])
            commands.append(["ZRANGE", "subscriber:" + id + ":evts", "0", "-1", "WITHSCORES"])
        }
        var replies: [RedisValue?]
        switch await Self.attempt({ () async throws(RedisError) -> [RedisValue] in try await redis.pipeline(commands) }) {
        case .success(let values):
            replies = values.map { Optional($0) }
        case .failure(let error):
            guard error.serverMessage != nil else { throw PushdImportError.redis(error) }
            replies = []
            replies.reserveCapacity(commands.count)
            for command in commands {
                switch await Self.attempt({ () async throws(RedisError) -> RedisValue in try await redis.send(command) }) {
                case .success(let value): replies.append(value)
                case .failure(let error):
                    guard error.serverMessage != nil else { throw PushdImportError.redis(error) }
                    replies.append(nil)
                }
            }
        }
        return ids.enumerated().map { index, id in
            var record = PushdSubscriberRecord(id: id)
            if let reply = replies[2 * index] {
                let fields = reply.fieldValues ?? [:]
                record.hash = fields.isEmpty ? nil : fields
            } else {
                record.wrongType = true
            }
            // A `:evts` key of the wrong type loses the subscriptions, not the subscriber.
            if replies[2 * index + 1] == nil { record.eventsWrongType = true }
            let scored = replies[2 * index + 1]?.elements ?? []
            var position = 0
            while position + 1 < scored.count {
                if let name = scored[position].text, let score = scored[position + 1].text { record.events.append((name, score)) }
                position += 2
            }
            return record
        }
    }

    /// Writes a batch's valid subscribers with one store call and counts everything in `report`.
    private func write(_ batch: Batch, into report: inout PushdImportReport, subscribedEvents: inout Set<String>) async throws {
        report.subscribersRead += batch.ids.count
        var subscribers: [ImportedSubscriber] = []
        subscribers.reserveCapacity(batch.readings.count)
        for (index, reading) in batch.readings.enumerated() {
            for reason in reading.skippedSubscriptions {
                report.subscriptionsSkipped[reason, default: 0] += 1
            }
            if let subscriber = reading.subscriber {
                subscribers.append(subscriber)
            } else if let reason = reading.skip {
                report.skip(batch.ids[index], reason)
            }
        }
        var written = subscribers
        if let store {
            let result = try await store.importSubscribers(subscribers)
            report.subscribersInserted += result.inserted
            report.subscribersUpdated += result.updated
            report.subscriptions += result.subscriptions
            if !result.conflicts.isEmpty {
                let conflicted = Set(result.conflicts)
                for id in result.conflicts {
                    report.skip(id.rawValue, .heldInHerald)
                }
                written.removeAll { conflicted.contains($0.id) }
            }
        } else {
            report.subscribersValid += subscribers.count
            report.subscriptions += subscribers.reduce(0) { $0 + $1.subscriptions.count }
        }
        for subscriber in written {
            if options.providerKinds[subscriber.proto] == nil { report.countUnknownProtocol(subscriber.proto, id: subscriber.id.rawValue) }
            for subscription in subscriber.subscriptions {
                subscribedEvents.insert(subscription.event.rawValue)
            }
        }
    }

    /// A Redis call's outcome as a value, so that an error reply (a key of the wrong type) can be
    /// told from a connection failure without a `catch … where` on a typed error, which
    /// Swift 6.3's SIL ownership verifier rejects in async functions.
    private static func attempt<T: Sendable>(_ body: () async throws(RedisError) -> T) async -> Result<T, RedisError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Events

    /// Reads every `event:<name>` hash by `SCAN` and imports the statistics of events that have subscriptions.
    private func importEvents(into report: inout PushdImportReport, subscribedEvents: Set<String>) async throws {
        var cursor = "0"
        repeat {
            let reply = try await redis.send(["SCAN", cursor, "MATCH", "event:*", "COUNT", "1000"]).elements ?? []
            guard reply.count == 2, let nextCursor = reply[0].text else { throw PushdImportError.layout("unexpected SCAN reply") }
            cursor = nextCursor
            let keys = (reply[1].elements ?? []).compactMap(\.text)
            guard !keys.isEmpty else { continue }
            // `event:<name>:subs` sorted sets share the prefix (and an event may be called `x:subs`): the type tells.
            let types = try await redis.pipeline(keys.map { ["TYPE", $0] }).map(\.text)
            let hashKeys = keys.indices.filter { types[$0] == "hash" }.map { keys[$0] }
            let notHashes = keys.indices.filter { types[$0] != "hash" && types[$0] != "zset" && types[$0] != "none" }.count
            if notHashes > 0 { report.eventsSkipped[PushdEventRecord.EventSkip.notAHash.rawValue, default: 0] += notHashes }
            guard !hashKeys.isEmpty else { continue }
            let hashes = try await redis.pipeline(hashKeys.map { ["HGETALL", $0] })
            var statistics: [ImportedEventStatistics] = []
            for (key, hash) in zip(hashKeys, hashes) {
                let record = PushdEventRecord(name: String(key.dropFirst("event:".count)), hash: hash.fieldValues ?? [:])
                switch record.read() {
                case .success(let entry): statistics.append(entry)
                case .failure(let skip): report.eventsSkipped[skip.rawValue, default: 0] += 1
                }
            }
            let imported = try await importStatistics(statistics, subscribedEvents: subscribedEvents, report: report)
            report.events += imported
            let unsubscribed = statistics.count - imported
            if unsubscribed > 0 { report.eventsSkipped[PushdEventRecord.EventSkip.unsubscribed.rawValue, default: 0] += unsubscribed }
        } while cursor != "0"
    }

    /// Writes (or on a dry run, counts) the statistics that may exist; returns how many.
    private func importStatistics(_ statistics: [ImportedEventStatistics], subscribedEvents: Set<String>, report: PushdImportReport) async throws -> Int {
        guard !statistics.isEmpty else { return 0 }
        if let store { return try await store.importEventStatistics(statistics).count }
        // A dry run asks Redis what the store would check: subscriptions, or the subscriber of a unicast.
        var count = 0
        var unicastIDs: [String] = []
        for entry in statistics {
            let name = entry.event.rawValue
            if name == EventName.broadcast.rawValue {
                if report.subscribersValid > 0 { count += 1 }
            } else if name.hasPrefix("unicast:") && !subscribedEvents.contains(name) {
                unicastIDs.append(String(name.dropFirst("unicast:".count)))
            } else if subscribedEvents.contains(name) {
                count += 1
            }
        }
        if !unicastIDs.isEmpty {
            let exists = try await redis.pipeline(unicastIDs.map { ["EXISTS", "subscriber:" + $0] })
            count += exists.filter { ($0.integer ?? 0) > 0 }.count
        }
        return count
    }
}
