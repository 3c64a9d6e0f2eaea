import CZeroMQ
import Foundation
import Synchronization

/// The dedicated thread that owns one libzmq socket: every call on the socket runs here, one at a
/// time, in the order asked, so no blocking libzmq call ever runs on an event loop or on Swift's
/// cooperative pool.
///
/// Operations that wait (a receive, a send on a full queue) poll in slices of
/// ``pollSlice`` milliseconds and look between slices at whether they should give up: their task
/// was cancelled, the socket stops receiving, or it is closing. So a shutdown is noticed within
/// one slice, and closing never hangs.
final class ZeroMQSocketThread: @unchecked Sendable {
    // @unchecked Sendable, and why it is safe:
    // - `socket` is a libzmq socket handle, which is not thread safe. It is created in `init` and
    //   from then on used only by `run()` on the one thread started in `init` (Thread.start is a
    //   full memory barrier, which is what zmq_socket(3) asks for when a socket changes threads).
    //   No other method dereferences it; they only enqueue closures that `run()` calls with it.
    // - `queue` and `state` are only read or written with `condition` locked.
    // - `stopReceiving` and `closing` are atomics.

    /// How long one poll waits before the stop conditions are looked at again (milliseconds).
    static let pollSlice: Int = 100

    private let socket: UnsafeMutableRawPointer
    private let condition = NSCondition()
    private var queue: [(UnsafeMutableRawPointer) -> Void] = []
    private var state: State = .running
    /// Set once: receives end with ``ZeroMQError/closed``; sends still work (a REP socket can answer
    /// the request it holds).
    let stopReceiving = Atomic<Bool>(false)
    /// Set once the socket is closing: every waiting operation ends.
    let closing = Atomic<Bool>(false)

    private enum State {
        case running
        case closing(waiters: [CheckedContinuation<Void, Never>])
        case closed
    }

    /// Creates the socket and starts its thread.
    init(type: ZeroMQSocketType, context: ZeroMQContext, name: String) throws(ZeroMQError) {
        guard let socket = zmq_socket(context.handle, type.rawValue) else { throw .lastError("zmq_socket") }
        // Closing never waits for unsent messages: a reply nobody can take any more is dropped.
        var linger: Int32 = 0
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, MemoryLayout<Int32>.size)
        self.socket = socket
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Runs `body` on the socket's thread and returns its result; `body` gets the socket and a
    /// function saying whether it should give up waiting (cancelled, stopped or closing).
    func perform<T: Sendable>(
        _ body: @escaping @Sendable (UnsafeMutableRawPointer, _ shouldStop: () -> ZeroMQError?) -> Result<T, ZeroMQError>
    ) async throws(ZeroMQError) -> T {
        let cancelled = CancellationFlag()
        let result: Result<T, ZeroMQError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, ZeroMQError>, Never>) in
                let job: (UnsafeMutableRawPointer) -> Void = { [self] socket in
                    continuation.resume(returning: body(socket) {
                        if closing.load(ordering: .acquiring) { return .closed }
                        if cancelled.isSet { return .cancelled }
                        return nil
                    })
                }
                condition.lock()
                guard case .running = state else {
                    condition.unlock()
                    continuation.resume(returning: .failure(.closed))
                    return
                }
                queue.append(job)
                condition.signal()
                condition.unlock()
            }
        } onCancel: {
            cancelled.set()
        }
        return try result.get()
    }

    /// Ends every waiting operation, runs what was already queued (each ends at once), closes the
    /// socket and returns once the thread has let go of it.
    func close() async {
        closing.store(true, ordering: .releasing)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            switch state {
            case .running:
                state = .closing(waiters: [continuation])
                condition.signal()
            case .closing(let waiters):
                state = .closing(waiters: waiters + [continuation])
            case .closed:
                continuation.resume()
            }
            condition.unlock()
        }
    }

    /// The thread's loop: one queued operation at a time until closed and drained.
    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty, case .running = state { condition.wait() }
            if queue.isEmpty {
                guard case .closing(let waiters) = state else {
                    condition.unlock()
                    continue
                }
                state = .closed
                condition.unlock()
                zmq_close(socket)
                for waiter in waiters { waiter.resume() }
                return
            }
            let job = queue.removeFirst()
            condition.unlock()
            job(socket)
        }
    }
}

/// Set when the task waiting for an operation is cancelled; read by the socket's thread.
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Whether it was set.
    var isSet: Bool { value.load(ordering: .acquiring) }

    /// Sets it.
    func set() {
        value.store(true, ordering: .releasing)
    }
}
