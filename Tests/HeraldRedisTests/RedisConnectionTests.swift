import HeraldRedis
import HeraldTestFixtures
import Testing

/// The hiredis-based client against a real `redis-server`.
@Suite struct RedisConnectionTests {
    @Test func commandsRepliesAndPipelines() async throws {
        let server = try await RedisTestServer.start()
        let redis = RedisConnection(url: server.url())
        do {
            #expect(try await redis.send(["SET", "k", "v a\u{0}lue"]) == .status("OK"))
            #expect(try await redis.send(["GET", "k"]) == .bulk(Array("v a\u{0}lue".utf8)), "binary-safe both ways")
            #expect(try await redis.send(["GET", "missing"]) == .null)
            #expect(try await redis.send(["INCRBY", "n", "41"]) == .integer(41))
            _ = try await redis.send(["HSET", "subscriber:abc", "proto", "apns", "lang", "fr", "badge", "3"])
            #expect(try await redis.send(["HGETALL", "subscriber:abc"]).fieldValues == ["proto": "apns", "lang": "fr", "badge": "3"])
            _ = try await redis.send(["ZADD", "subscriber:abc:evts", "1", "news", "0", "sport"])
            #expect(try await redis.send(["ZRANGE", "subscriber:abc:evts", "0", "-1", "WITHSCORES"]).elements?.compactMap(\.text)
                == ["sport", "0", "news", "1"])

            let replies = try await redis.pipeline((0..<1000).map { ["RPUSH", "list", "item-\($0)"] })
            #expect(replies.count == 1000)
            #expect(replies.last == .integer(1000))
            let range = try await redis.send(["LRANGE", "list", "0", "2"])
            #expect(range.elements?.compactMap(\.text) == ["item-0", "item-1", "item-2"])
        } catch {
            Issue.record(error)
        }
        await redis.close()
        await server.stop()
    }

    @Test func anErrorReplyFailsItsCommandAndTheConnectionGoesOn() async throws {
        let server = try await RedisTestServer.start()
        let redis = RedisConnection(url: server.url())
        _ = try await redis.send(["SET", "text", "x"])
        await #expect { _ = try await redis.send(["HGETALL", "text"]) } throws: { error in
            (error as? RedisError)?.serverMessage?.hasPrefix("WRONGTYPE") == true
        }
        // In a pipeline every reply is read before the first error is thrown, so the next command is in step.
        await #expect(throws: RedisError.self) { _ = try await redis.pipeline([["LPUSH", "text", "y"], ["SET", "after", "1"]]) }
        #expect(try await redis.send(["GET", "after"]) == .bulk(Array("1".utf8)))
        await redis.close()
        await #expect(throws: RedisError.closed) { _ = try await redis.send(["PING"]) }
        await server.stop()
    }

    @Test func blockingPopsWaitBeyondTheUsualTimeout() async throws {
        let server = try await RedisTestServer.start()
        let consumer = RedisConnection(url: server.url(), timeout: .milliseconds(500))
        let producer = RedisConnection(url: server.url())
        #expect(try await consumer.send(["BRPOP", "queue", "1"], blockingFor: .seconds(1)) == .null)
        async let popped = consumer.send(["BRPOP", "queue", "5"], blockingFor: .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
        _ = try await producer.send(["LPUSH", "queue", "message"])
        #expect(try await popped.elements?.compactMap(\.text) == ["queue", "message"])
        await consumer.close()
        await producer.close()
        await server.stop()
    }

    @Test func aServerThatGoesAwayIsAConnectionFailureAndComingBackIsReconnected() async throws {
        let server = try await RedisTestServer.start()
        let redis = RedisConnection(url: server.url(), timeout: .seconds(1))
        _ = try await redis.send(["SET", "k", "1"])
        await server.stop()
        await #expect { _ = try await redis.send(["GET", "k"]) } throws: { ($0 as? RedisError)?.isConnectionFailure == true }
        await #expect { _ = try await redis.send(["GET", "k"]) } throws: { ($0 as? RedisError)?.isConnectionFailure == true }
        let again = try await RedisTestServer.start(port: server.port)
        #expect(try await redis.send(["PING"]) == .status("PONG"))
        await redis.close()
        await again.stop()
    }

    @Test func passwordsAndDatabasesAreUsedWhenConnecting() async throws {
        let server = try await RedisTestServer.start(password: "s3cret-pass")
        let three = RedisConnection(url: server.url(database: 3))
        let zero = RedisConnection(url: server.url())
        _ = try await three.send(["SET", "where", "three"])
        #expect(try await zero.send(["GET", "where"]) == .null)
        #expect(try await three.send(["GET", "where"]).text == "three")
        let wrong = RedisConnection(url: RedisURL(host: "127.0.0.1", port: server.port, password: "wrong"))
        await #expect { _ = try await wrong.send(["PING"]) } throws: { error in
            (error as? RedisError)?.isConnectionFailure == true && !"\(error)".contains("wrong")
        }
        await three.close()
        await zero.close()
        await wrong.close()
        await server.stop()
    }

    @Test func urlsAreParsedAndPrintedWithoutPasswords() {
        #expect(RedisURL("redis://127.0.0.1:6380/2") == RedisURL(host: "127.0.0.1", port: 6380, database: 2))
        #expect(RedisURL("redis://localhost") == RedisURL(host: "localhost"))
        #expect(RedisURL("redis://:pw@cache:6379/0")?.password == "pw")
        #expect(RedisURL("redis://user:pw@cache/1")?.password == "pw")
        #expect(RedisURL("redis://[::1]:7000/4") == RedisURL(host: "::1", port: 7000, database: 4))
        #expect(RedisURL("redis://user:pw@cache/1")?.description == "redis://cache:6379/1")
        for bad in ["http://x", "redis://", "redis://h:0", "redis://h:x", "redis://h/x", "redis://[::1"] {
            #expect(RedisURL(bad) == nil, "\(bad)")
        }
    }
}
