import HeraldRedis
import Logging
import ServiceLifecycle

/// Listens on the legacy channel `<ns>:suj_pusher_queue` (suj-pusher ≤ 0.1.5, compat.md §2.2).
///
/// `ECHO` is ignored (a keepalive). `PUSH_MSG` asked the old daemon to empty the list; the list
/// consumer takes every message as it arrives, so there is nothing more to do. Anything else is a
/// message itself. With several nodes on one database, only the node holding the channel lease
/// subscribes, so a message published on the channel is handled once.
struct SujPusherChannelListener: Service, CustomStringConvertible {
    let settings: SujPusherSettings
    let handler: SujPusherHandler
    let leases: SujPusherLeases
    let logger: Logger

    var description: String { "SujPusherChannelListener" }

    /// How long one wait for a channel message lasts before the listener looks at its lease and cancellation.
    static let waitSlice: Duration = .milliseconds(500)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await listen()
        }
        await leases.release(SujPusherLeases.channel)
    }

    private func listen() async {
        var backoff: Duration = .milliseconds(250)
        while !Task.isCancelled {
            guard await leases.hold(SujPusherLeases.channel) else {
                // Another node listens (or the store is unreachable): look again at the next renewal.
                try? await Task.sleep(for: leases.renewal)
                continue
            }
            let redis = RedisConnection(url: settings.redis)
            do {
                try await subscribe(redis)
                backoff = .milliseconds(250)
            } catch let error as RedisError {
                logger.warning(
                    "Redis connection lost; reconnecting", metadata: ["error": "\(error)", "retry_in": "\(backoff)", "redis": "\(settings.redis)"])
                await redis.close()
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, SujPusherListConsumer.maximumBackoff)
                continue
            } catch {
                // Cancelled.
            }
            await redis.close()
        }
    }

    /// Subscribes and handles messages until the lease is lost (returns) or the task is cancelled.
    private func subscribe(_ redis: RedisConnection) async throws {
        _ = try await redis.send(["SUBSCRIBE", settings.channel])
        logger.info("listening on the suj-pusher channel", metadata: ["channel": "\(settings.channel)"])
        var renewAt = ContinuousClock.now + leases.renewal
        while true {
            try Task.checkCancellation()
            if ContinuousClock.now >= renewAt {
                guard await leases.hold(SujPusherLeases.channel) else {
                    logger.warning("lost the suj-pusher channel lease; another node listens now")
                    return
                }
                renewAt = ContinuousClock.now + leases.renewal
            }
            guard let reply = try await redis.receive(waitingUpTo: Self.waitSlice), let parts = reply.elements,
                parts.count == 3, parts[0].text == "message", let message = parts[2].text
            else { continue }
            switch message {
            case "ECHO":
                continue
            case "PUSH_MSG":
                logger.debug("PUSH_MSG: the list consumer takes the list's messages already")
            default:
                guard await handler.handle(message, input: "channel") else { throw CancellationError() }
            }
        }
    }
}
