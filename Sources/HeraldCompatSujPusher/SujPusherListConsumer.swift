import HeraldRedis
import Logging
import ServiceLifecycle

/// Takes suj-pusher's messages off `<ns>:suj_pusher_msgs` (compat.md §2.2) without ever losing one.
///
/// Each message is moved atomically (`BLMOVE … RIGHT LEFT`, or `BRPOPLPUSH` before Redis 6.2)
/// to this node's processing list, and removed from there (`LREM`) only once it is committed in
/// Herald's store; at start-up the node first handles what its list still holds. A node that dies
/// leaves its list to the node that takes its lease over (``SujPusherLeases``). So `kill -9` at any
/// moment loses nothing; a message committed just before a crash may be sent twice.
struct SujPusherListConsumer: Service, CustomStringConvertible {
    let settings: SujPusherSettings
    let handler: SujPusherHandler
    let leases: SujPusherLeases
    let logger: Logger

    var description: String { "SujPusherListConsumer" }

    /// How long one `BLMOVE` waits for a message: short, so that shutdown and lease renewals are prompt.
    static let blockSeconds = 1
    /// The longest wait before reconnecting to Redis.
    static let maximumBackoff: Duration = .seconds(30)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await consume()
        }
    }

    private func consume() async {
        let redis = RedisConnection(url: settings.redis)
        var backoff: Duration = .milliseconds(250)
        var node: Int?
        while !Task.isCancelled {
            do {
                let number: Int
                if let node { number = node } else { number = try await leases.claimNode() }
                node = number
                try await serve(node: number, redis: redis)
                // The lease was lost (the store was unreachable too long): claim a number again.
                await leases.release(SujPusherLeases.node(number))
                node = nil
            } catch is CancellationError {
                break
            } catch let error as RedisError {
                logger.warning(
                    "Redis connection lost; reconnecting", metadata: ["error": "\(error)", "retry_in": "\(backoff)", "redis": "\(settings.redis)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, Self.maximumBackoff)
                continue
            } catch {
                break
            }
            backoff = .milliseconds(250)
        }
        await redis.close()
        if let node { await leases.release(SujPusherLeases.node(node)) }
    }

    /// Handles what node `number`'s list holds, then takes messages until the lease is lost
    /// (returns) or the task is cancelled (throws `CancellationError`).
    private func serve(node number: Int, redis: RedisConnection) async throws {
        let processing = settings.processingList(node: number)
        try await drain(processing, redis: redis)
        logger.info("taking suj-pusher messages", metadata: ["list": "\(settings.listKey)", "node": "\(number)"])
        var legacyMove = false
        var renewAt = ContinuousClock.now + leases.renewal
        while true {
            try Task.checkCancellation()
            if ContinuousClock.now >= renewAt {
                guard await leases.hold(SujPusherLeases.node(number)) else {
                    logger.warning("lost the suj-pusher node lease; claiming another", metadata: ["node": "\(number)"])
                    return
                }
                try await adoptOrphans(besides: number, redis: redis)
                renewAt = ContinuousClock.now + leases.renewal
            }
            let command = legacyMove
                ? ["BRPOPLPUSH", settings.listKey, processing, String(Self.blockSeconds)]
                : ["BLMOVE", settings.listKey, processing, "RIGHT", "LEFT", String(Self.blockSeconds)]
            let reply: Result<RedisValue, RedisError>
            do {
                reply = .success(try await redis.send(command, blockingFor: .seconds(Self.blockSeconds)))
            } catch {
                reply = .failure(error)
            }
            if case .failure(let error) = reply, !legacyMove, error.serverMessage?.lowercased().contains("unknown command") ?? false {
                logger.info("Redis has no BLMOVE (before 6.2): using BRPOPLPUSH")
                legacyMove = true
                continue
            }
            let taken = try reply.get()
            guard let message = taken.text else { continue }
            guard await handler.handle(message, input: "list") else { throw CancellationError() }
            try await removeHandled(message, from: processing, redis: redis)
        }
    }

    /// Removes a handled message from the tail of `list` (where the oldest is).
    private func removeHandled(_ message: String, from list: String, redis: RedisConnection) async throws {
        // A message that is not valid UTF-8 was repaired when read, so its text matches nothing:
        // the tail is that message (only this node uses the list), so pop it.
        if try await redis.send(["LREM", list, "-1", message]).integer == 0 {
            _ = try await redis.send(["RPOP", list])
        }
    }

    /// Handles every message of `list`, oldest first, removing each once it is stored.
    private func drain(_ list: String, redis: RedisConnection) async throws {
        var count = 0
        while let message = try await redis.send(["LRANGE", list, "-1", "-1"]).elements?.first?.text {
            guard await handler.handle(message, input: "list") else { throw CancellationError() }
            try await removeHandled(message, from: list, redis: redis)
            count += 1
        }
        if count > 0 { logger.info("handled messages a previous run had taken", metadata: ["list": "\(list)", "messages": "\(count)"]) }
    }

    /// Drains the processing lists of nodes whose lease expired (nodes that died), holding each
    /// node's lease while its list is drained.
    private func adoptOrphans(besides own: Int, redis: RedisConnection) async throws {
        let prefix = settings.processingList(node: 0).dropLast()
        var cursor = "0"
        var numbers: Set<Int> = []
        repeat {
            let reply = try await redis.send(["SCAN", cursor, "MATCH", settings.processingListPattern, "COUNT", "1000"])
            guard let parts = reply.elements, parts.count == 2, let next = parts[0].text else { break }
            cursor = next
            for key in parts[1].elements ?? [] {
                guard let name = key.text, name.hasPrefix(prefix), let number = Int(name.dropFirst(prefix.count)) else { continue }
                if number != own { numbers.insert(number) }
            }
        } while cursor != "0"
        for number in numbers.sorted() {
            guard await leases.hold(SujPusherLeases.node(number)) else { continue }
            logger.info("taking over the messages of a node that stopped", metadata: ["node": "\(number)"])
            try await drain(settings.processingList(node: number), redis: redis)
            await leases.release(SujPusherLeases.node(number))
        }
    }
}
