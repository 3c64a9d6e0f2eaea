import CZeroMQ
import Foundation

/// A libzmq context: the I/O threads its sockets share.
///
/// Terminate it with ``terminate()`` once every socket made from it is closed.
public final class ZeroMQContext: @unchecked Sendable {
    // @unchecked: the only stored property is the context handle, which never changes, and libzmq
    // documents contexts as thread safe ("a ØMQ context is thread safe and may be shared among as
    // many application threads as necessary", zmq_ctx_new(3)).
    let handle: UnsafeMutableRawPointer

    /// Creates a context with libzmq's defaults (one I/O thread).
    public init() throws(ZeroMQError) {
        guard let handle = zmq_ctx_new() else { throw .lastError("zmq_ctx_new") }
        // Not blocky: zmq_ctx_term sets every socket's linger to 0 instead of waiting forever for
        // unsent messages. Sockets set linger 0 themselves too; this covers any left open.
        zmq_ctx_set(handle, ZMQ_BLOCKY, 0)
        self.handle = handle
    }

    /// libzmq's version, `major.minor.patch`.
    public static var libraryVersion: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    /// Terminates the context on a thread of its own (zmq_ctx_term blocks until every socket is
    /// closed), so no event loop or cooperative thread waits on it.
    public func terminate() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                // EINTR: a signal interrupted it; the context is not terminated yet, so ask again.
                while zmq_ctx_term(handle) != 0, zmq_errno() == EINTR {}
                continuation.resume()
            }
            thread.name = "zmq-ctx-term"
            thread.start()
        }
    }
}
