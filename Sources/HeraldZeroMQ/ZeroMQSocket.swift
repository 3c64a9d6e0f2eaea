import CZeroMQ

/// A libzmq socket with an async interface: every call on it runs on a thread of its own (see
/// ``ZeroMQSocketThread``), so no event loop waits on libzmq.
///
/// Messages are single frames of bytes. Close it with ``close()`` (its thread runs until then),
/// before terminating its context.
public final class ZeroMQSocket: Sendable {
    /// Largest message received by default: the stand-ins' requests are text lines far below it.
    public static let defaultMaxMessageSize = 1 << 20

    private let thread: ZeroMQSocketThread
    /// The largest message received; a larger one makes libzmq drop the connection that sent it.
    public let maxMessageSize: Int

    /// Creates a socket of `type` in `context`; `name` names its thread (in debuggers and `top -H`).
    public init(
        _ type: ZeroMQSocketType, context: ZeroMQContext, maxMessageSize: Int = ZeroMQSocket.defaultMaxMessageSize,
        name: String = "zmq-socket"
    ) throws(ZeroMQError) {
        thread = try ZeroMQSocketThread(type: type, context: context, name: name)
        self.maxMessageSize = maxMessageSize
    }

    /// Binds to `endpoint` (`tcp://127.0.0.1:12195`, `tcp://*:*`, `ipc:///path`) and returns the
    /// endpoint bound, with the port the system chose when `*` or `0` asked for one.
    @discardableResult
    public func bind(_ endpoint: String) async throws(ZeroMQError) -> String {
        let maxMessageSize = Int64(self.maxMessageSize)
        return try await thread.perform { socket, _ -> Result<String, ZeroMQError> in
            var limit = maxMessageSize
            guard zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &limit, MemoryLayout<Int64>.size) == 0 else {
                return .failure(.lastError("zmq_setsockopt(ZMQ_MAXMSGSIZE)"))
            }
            guard zmq_bind(socket, endpoint) == 0 else { return .failure(.lastError("zmq_bind(\(endpoint))")) }
            var buffer = [CChar](repeating: 0, count: 1024)
            var size = buffer.count
            guard zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else {
                return .failure(.lastError("zmq_getsockopt(ZMQ_LAST_ENDPOINT)"))
            }
            return .success(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// Connects to `endpoint`; libzmq connects (and reconnects) in the background.
    public func connect(_ endpoint: String) async throws(ZeroMQError) {
        try await thread.perform { socket, _ in
            zmq_connect(socket, endpoint) == 0 ? .success(()) : .failure(.lastError("zmq_connect(\(endpoint))"))
        }
    }

    /// Receives the next message, waiting at most `timeout` (`nil`: until one comes).
    ///
    /// - Throws: ``ZeroMQError/timedOut``; ``ZeroMQError/cancelled`` when the task is cancelled;
    ///   ``ZeroMQError/closed`` once ``stopReceiving()`` or ``close()`` was called.
    public func receive(timeout: Duration? = nil) async throws(ZeroMQError) -> ZeroMQMessage {
        let thread = self.thread
        let deadline = timeout.map { ContinuousClock.now + $0 }
        return try await thread.perform { socket, shouldStop -> Result<ZeroMQMessage, ZeroMQError> in
            while true {
                if let stop = shouldStop() { return .failure(stop) }
                if thread.stopReceiving.load(ordering: .acquiring) { return .failure(.closed) }
                switch Self.poll(socket, events: ZMQ_POLLIN) {
                case .failure(let error): return .failure(error)
                case .success(true): return Self.read(socket)
                case .success(false):
                    if let deadline, ContinuousClock.now >= deadline { return .failure(.timedOut) }
                }
            }
        }
    }

    /// Sends one single-frame message, waiting while the socket cannot take it until it can, the
    /// task is cancelled or the socket closes.
    public func send(_ bytes: [UInt8]) async throws(ZeroMQError) {
        try await thread.perform { socket, shouldStop -> Result<Void, ZeroMQError> in
            while true {
                if let stop = shouldStop() { return .failure(stop) }
                let sent = bytes.withUnsafeBytes { zmq_send(socket, $0.baseAddress, $0.count, ZMQ_DONTWAIT) }
                if sent >= 0 { return .success(()) }
                guard zmq_errno() == EAGAIN else { return .failure(.lastError("zmq_send")) }
                if case .failure(let error) = Self.poll(socket, events: ZMQ_POLLOUT) { return .failure(error) }
            }
        }
    }

    /// Makes the current and every later ``receive(timeout:)`` end with ``ZeroMQError/closed``
    /// (within one poll slice); sends still work, so a reply socket can answer the request it
    /// holds before it is closed.
    public func stopReceiving() {
        thread.stopReceiving.store(true, ordering: .releasing)
    }

    /// Closes the socket (dropping unsent messages) and stops its thread; whatever waits on it
    /// ends with ``ZeroMQError/closed``. Returns once the socket is closed; calling it again is harmless.
    public func close() async {
        await thread.close()
    }

    /// Waits one poll slice for `events`; `true` when they are ready. EINTR counts as not ready.
    private static func poll(_ socket: UnsafeMutableRawPointer, events: Int32) -> Result<Bool, ZeroMQError> {
        var item = zmq_pollitem_t(socket: socket, fd: 0, events: Int16(events), revents: 0)
        let ready = zmq_poll(&item, 1, ZeroMQSocketThread.pollSlice)
        if ready < 0 { return zmq_errno() == EINTR ? .success(false) : .failure(.lastError("zmq_poll")) }
        return .success(ready > 0 && item.revents & Int16(events) != 0)
    }

    /// Reads the message that is ready: its first frame, and drops any further frames.
    private static func read(_ socket: UnsafeMutableRawPointer) -> Result<ZeroMQMessage, ZeroMQError> {
        var frame = zmq_msg_t()
        zmq_msg_init(&frame)
        defer { zmq_msg_close(&frame) }
        guard zmq_msg_recv(&frame, socket, ZMQ_DONTWAIT) >= 0 else { return .failure(.lastError("zmq_msg_recv")) }
        let size = zmq_msg_size(&frame)
        let bytes: [UInt8] = size == 0 ? [] : Array(UnsafeRawBufferPointer(start: zmq_msg_data(&frame), count: size))
        let peerAddress = zmq_msg_gets(&frame, "Peer-Address").map { String(cString: $0) }
        var multipart = false
        while zmq_msg_more(&frame) != 0 {
            // The rest of a multipart message is already here (libzmq delivers messages whole).
            multipart = true
            zmq_msg_close(&frame)
            zmq_msg_init(&frame)
            guard zmq_msg_recv(&frame, socket, ZMQ_DONTWAIT) >= 0 else { return .failure(.lastError("zmq_msg_recv")) }
        }
        return .success(ZeroMQMessage(bytes: bytes, peerAddress: peerAddress, wasMultipart: multipart))
    }
}
