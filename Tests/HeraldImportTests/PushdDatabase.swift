import HeraldRedis

/// Writes rs/pushd's exact Redis layout (lib/subscriber.coffee, lib/event.coffee), as pushd
/// would have left it, plus whatever broken records a test wants.
struct PushdDatabase {
    let redis: RedisConnection
    /// The commands not yet sent; ``flush()`` sends them in one pipeline.
    private(set) var commands: [[String]] = []

    init(redis: RedisConnection) {
        self.redis = redis
    }

    /// A subscriber as `Subscriber::create` and `addSubscription` write it: the hash, the
    /// `subscribers` entry, `tokenmap`, and per event the `:evts` and `:subs` sorted sets, the
    /// event's `created` and the `events` set.
    mutating func subscriber(_ id: String, _ fields: [String: String], events: [(name: String, options: Int)] = [], tokenmap: Bool = true) {
        commands.append(["ZADD", "subscribers", "0", id])
        if !fields.isEmpty { commands.append(["HSET", "subscriber:" + id] + fields.flatMap { [$0.key, $0.value] }) }
        if tokenmap, let proto = fields["proto"], let token = fields["token"] {
            commands.append(["HSETNX", "tokenmap", proto + ":" + token, id])
        }
        for event in events {
            commands.append(["ZADD", "subscriber:\(id):evts", String(event.options), event.name])
            commands.append(["ZADD", "event:\(event.name):subs", String(event.options), id])
            commands.append(["HSETNX", "event:" + event.name, "created", fields["created"] ?? "1300000000"])
            commands.append(["SADD", "events", event.name])
        }
    }

    /// An event's statistics as `Event::incrementStatistics` leaves them.
    mutating func statistics(_ name: String, _ fields: [String: String]) {
        commands.append(["HSET", "event:" + name] + fields.flatMap { [$0.key, $0.value] })
    }

    /// Any command (a broken record).
    mutating func raw(_ command: [String]) {
        commands.append(command)
    }

    /// Sends what was written so far.
    mutating func flush() async throws {
        _ = try await redis.pipeline(commands)
        commands = []
    }
}
