import CHiredis
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// One connection to a Redis server, through hiredis's synchronous client, usable from any task.
///
/// hiredis blocks on its socket, so every use of the connection runs on a thread of its own (a
/// one-thread `NIOThreadPool`), never on an event loop or the cooperative pool; commands queue there
/// in order. A connection that breaks is dropped and the next command connects again, so a consumer
/// only has to retry with backoff.
public final class RedisConnection: @unchecked Sendable {
    // Safety: `context` is read and written only inside blocks run by `thread`, a pool of exactly one
    // thread, so accesses never overlap and each happens-after the previous (the pool's queue orders
    // them). Every other stored property is immutable.
    private var context: UnsafeMutablePointer<redisContext>?
    private let thread: NIOThreadPool
    /// Where the server is.
    public let url: RedisURL
    private let timeout: Duration

    /// A connection to `url`, opened on first use; `timeout` bounds connecting and each reply.
    public init(url: RedisURL, timeout: Duration = .seconds(5)) {
        self.url = url
        self.timeout = timeout
        self.thread = NIOThreadPool(numberOfThreads: 1)
        self.thread.start()
    }

    /// Sends one command (`["HGETALL", "subscriber:abc"]`) and returns its reply.
    ///
    /// - Parameter blockingFor: for a blocking command (`BRPOP ... 5`), how long the server may hold
    ///   the reply; the socket waits that long beyond the usual timeout.
    /// - Throws: ``RedisError``: `server` for an error reply, `connection` when the server cannot be reached.
    public func send(_ command: [String], blockingFor: Duration = .zero) async throws(RedisError) -> RedisValue {
        try await pipeline([command], blockingFor: blockingFor)[0]
    }

    /// Sends `commands` at once and returns their replies in order: one round trip for many commands.
    ///
    /// - Throws: the first error reply, as ``RedisError/server(_:)``, once every reply has been read
    ///   (the connection stays in step); ``RedisError/connection(_:)`` when the connection failed.
    public func pipeline(_ commands: [[String]], blockingFor: Duration = .zero) async throws(RedisError) -> [RedisValue] {
        guard !commands.isEmpty else { return [] }
        let result: Result<[RedisValue], RedisError>
        do {
            result = try await thread.runIfActive { self.execute(commands, blockingFor: blockingFor) }
        } catch {
            throw .closed
        }
        return try result.get()
    }

    /// Waits up to `wait` for one reply the server sends unasked: a message on a channel this
    /// connection `SUBSCRIBE`d to (`["message", channel, payload]`).
    ///
    /// Returns `nil` when nothing (or only part of a reply) arrived in time, so a listener can look
    /// at its cancellation between waits; the connection stays usable. Subscribe with ``send(_:blockingFor:)``
    /// first, and use the connection for nothing else while it listens.
    /// - Throws: ``RedisError/connection(_:)`` when the connection broke or was never opened.
    public func receive(waitingUpTo wait: Duration) async throws(RedisError) -> RedisValue? {
        let result: Result<RedisValue?, RedisError>
        do {
            result = try await thread.runIfActive { self.receiveOne(waitingUpTo: wait) }
        } catch {
            throw .closed
        }
        return try result.get()
    }

    /// Closes the connection; later commands throw ``RedisError/closed``.
    public func close() async {
        _ = try? await thread.runIfActive { self.disconnect() }
        try? await thread.shutdownGracefully()
    }

    // MARK: - On the connection's thread

    private func execute(_ commands: [[String]], blockingFor: Duration) -> Result<[RedisValue], RedisError> {
        let context: UnsafeMutablePointer<redisContext>
        switch connected() {
        case .success(let ready): context = ready
        case .failure(let error): return .failure(error)
        }
        if blockingFor > .zero { redisSetTimeout(context, Self.timeval(timeout + blockingFor)) }
        defer { if blockingFor > .zero, let current = self.context { redisSetTimeout(current, Self.timeval(timeout)) } }
        for command in commands where Self.append(command, to: context) != REDIS_OK {
            return .failure(dropConnection())
        }
        var values: [RedisValue] = []
        values.reserveCapacity(commands.count)
        var firstError: RedisError?
        for _ in commands {
            var reply: UnsafeMutableRawPointer?
            guard redisGetReply(context, &reply) == REDIS_OK, let reply else {
                return .failure(dropConnection())
            }
            let typed = reply.assumingMemoryBound(to: redisReply.self)
            switch Self.value(of: typed) {
            case .success(let value): values.append(value)
            case .failure(let error):
                firstError = firstError ?? error
                values.append(.null)
            }
            freeReplyObject(reply)
        }
        if let firstError { return .failure(firstError) }
        return .success(values)
    }

    private func receiveOne(waitingUpTo wait: Duration) -> Result<RedisValue?, RedisError> {
        guard let context else { return .failure(.connection("not connected")) }
        var reply: UnsafeMutableRawPointer?
        // A reply may already sit in hiredis's buffer (read along with the previous one).
        guard redisGetReplyFromReader(context, &reply) == REDIS_OK else { return .failure(dropConnection()) }
        if reply == nil {
            // Polling the socket rather than a blocking read with a timeout: hiredis treats a read
            // timeout as a broken connection, and a listener must be able to wait in short slices.
            let (seconds, attoseconds) = wait.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            var descriptor = pollfd(fd: context.pointee.fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready == 0 || (ready < 0 && errno == EINTR) { return .success(nil) }
            guard ready > 0, redisBufferRead(context) == REDIS_OK,
                redisGetReplyFromReader(context, &reply) == REDIS_OK
            else { return .failure(dropConnection()) }
            guard reply != nil else { return .success(nil) }
        }
        guard let reply else { return .success(nil) }
        defer { freeReplyObject(reply) }
        return Self.value(of: reply.assumingMemoryBound(to: redisReply.self)).map { Optional($0) }
    }

    /// The open context, connecting (with `AUTH` and `SELECT`) when there is none.
    private func connected() -> Result<UnsafeMutablePointer<redisContext>, RedisError> {
        if let context { return .success(context) }
        guard let fresh = redisConnectWithTimeout(url.host, Int32(url.port), Self.timeval(timeout)) else {
            return .failure(.connection("cannot allocate a connection"))
        }
        guard fresh.pointee.err == 0 else {
            let reason = Self.errorText(of: fresh)
            redisFree(fresh)
            return .failure(.connection(reason))
        }
        redisSetTimeout(fresh, Self.timeval(timeout))
        context = fresh
        var setup: [[String]] = []
        if let password = url.password { setup.append(["AUTH", password]) }
        if url.database != 0 { setup.append(["SELECT", String(url.database)]) }
        if !setup.isEmpty, case .failure(let error) = execute(setup, blockingFor: .zero) {
            disconnect()
            // An AUTH refusal names no secret; say which step failed.
            return .failure(.connection("setting up the connection failed: \(error)"))
        }
        return .success(fresh)
    }

    /// Frees a broken context and says why it broke.
    private func dropConnection() -> RedisError {
        let reason = context.map(Self.errorText(of:)) ?? "not connected"
        disconnect()
        return .connection(reason)
    }

    private func disconnect() {
        if let context { redisFree(context) }
        context = nil
    }

    private static func append(_ command: [String], to context: UnsafeMutablePointer<redisContext>) -> Int32 {
        // hiredis copies the formatted command into its output buffer, so the argument copies are freed at once.
        let arguments = command.map { argument -> (UnsafeMutablePointer<CChar>, Int) in
            let bytes = Array(argument.utf8)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: bytes.count) }
            }
            return (copy, bytes.count)
        }
        defer { for (pointer, _) in arguments { pointer.deallocate() } }
        var pointers: [UnsafePointer<CChar>?] = arguments.map { UnsafePointer($0.0) }
        var lengths: [Int] = arguments.map(\.1)
        return pointers.withUnsafeMutableBufferPointer { argv in
            lengths.withUnsafeMutableBufferPointer { argvlen in
                redisAppendCommandArgv(context, Int32(command.count), argv.baseAddress, argvlen.baseAddress)
            }
        }
    }

    private static func value(of reply: UnsafeMutablePointer<redisReply>) -> Result<RedisValue, RedisError> {
        let node = reply.pointee
        switch node.type {
        case REDIS_REPLY_STRING:
            return .success(.bulk(bytes(node.str, node.len)))
        case REDIS_REPLY_STATUS:
            return .success(.status(String(decoding: bytes(node.str, node.len), as: UTF8.self)))
        case REDIS_REPLY_ERROR:
            return .failure(.server(String(decoding: bytes(node.str, node.len), as: UTF8.self)))
        case REDIS_REPLY_INTEGER:
            return .success(.integer(Int64(node.integer)))
        case REDIS_REPLY_NIL:
            return .success(.null)
        case REDIS_REPLY_ARRAY:
            var elements: [RedisValue] = []
            elements.reserveCapacity(Int(node.elements))
            for index in 0..<Int(node.elements) {
                guard let element = node.element[index] else { return .failure(.unexpectedReply("a missing array element")) }
                switch value(of: element) {
                case .success(let value): elements.append(value)
                case .failure(let error): return .failure(error)
                }
            }
            return .success(.array(elements))
        default:
            return .failure(.unexpectedReply("type \(node.type)"))
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private static func errorText(of context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func timeval(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
