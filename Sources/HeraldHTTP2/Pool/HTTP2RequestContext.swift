import NIOCore
import Synchronization

/// One request's journey through the pool: queued, on a stream, perhaps back in the queue for a
/// transparent retry, and finally answered exactly once.
///
/// Shared by the calling task (cancellation), the pool (queue) and a stream handler (event loop),
/// so its mutable state sits in a `Mutex`; resuming the continuation happens outside the lock.
final class HTTP2RequestContext: Sendable, Identifiable {
    /// Unchecked: the continuation is resumed exactly once, by `start` (already cancelled) or by
    /// the `finish` call that moves the phase to `.finished`, both under the lock; a checked one
    /// would cost an allocation per request to verify that.
    typealias Continuation = UnsafeContinuation<Result<HTTP2Response, HTTP2ClientError>, Never>

    /// Where the request is, as far as cancellation is concerned.
    enum Phase: Sendable {
        /// Not yet handed to the pool.
        case created
        /// Queued or being dispatched; cancellation goes through the pool's queue.
        case pending
        /// On a stream; cancellation resets it on its event loop.
        case onStream(NIOLoopBound<HTTP2StreamHandler>)
        /// Answered.
        case finished
    }

    /// Who hears the result: an awaiting task, or a batch that counts its requests.
    enum Completion: Sendable {
        case continuation(Continuation)
        case batch(HTTP2BatchExecution, index: Int)
    }

    private struct State {
        var completion: Completion?
        var phase: Phase = .created
        var cancelRequested = false
        var processedRetries = 0
        var unsentBounces = 0
    }

    /// How often a request may come back unsent (its connection closed or filled up between the
    /// pool's choice and the event loop's turn) before it fails. Legitimate races bounce a request
    /// a few times; this bound turns an accounting bug into an error instead of an endless loop.
    private static let maxUnsentBounces = 64

    /// The request to send.
    let request: HTTP2Request

    /// When the request fails with `deadlineExceeded`, wherever it is.
    let deadline: NIODeadline

    private let state = Mutex(State())

    /// Creates the context of a request that is about to be submitted.
    init(request: HTTP2Request, deadline: NIODeadline) {
        self.request = request
        self.deadline = deadline
    }

    /// Whether the calling task asked to cancel.
    var isCancelRequested: Bool {
        self.state.withLock { $0.cancelRequested }
    }

    /// Stores the caller's continuation before submission.
    ///
    /// - Returns: `false` if the task was already cancelled; the continuation has then been resumed.
    func start(_ continuation: Continuation) -> Bool {
        self.start(.continuation(continuation))
    }

    /// Stores who hears the result before submission.
    ///
    /// - Returns: `false` if cancellation was already requested; the completion has then been called.
    func start(_ completion: Completion) -> Bool {
        let cancelled = self.state.withLock { state -> Bool in
            guard !state.cancelRequested else {
                state.phase = .finished
                return true
            }
            state.completion = completion
            state.phase = .pending
            return false
        }
        if cancelled {
            Self.complete(completion, with: .failure(.cancelled(mayHaveBeenProcessed: false)))
        }
        return !cancelled
    }

    /// Records that a stream handler now owns the request.
    ///
    /// - Returns: `false` if cancellation was requested meanwhile; the handler must give up.
    func attach(_ handler: NIOLoopBound<HTTP2StreamHandler>) -> Bool {
        self.state.withLock { state in
            guard case .pending = state.phase else { return false }
            state.phase = .onStream(handler)
            return !state.cancelRequested
        }
    }

    /// Hands the request back to the pool for a transparent retry.
    ///
    /// - Parameters:
    ///   - wasSent: Whether the server saw the request (it declined it); such retries are limited.
    ///   - limit: The most retries of sent requests.
    /// - Returns: `false` if the retry limit is reached or the request was cancelled; finish it instead.
    func prepareRetry(wasSent: Bool, limit: Int) -> Bool {
        self.state.withLock { state in
            guard case .onStream = state.phase, !state.cancelRequested else { return false }
            if wasSent {
                // A server that keeps declining must not bounce one request forever.
                guard state.processedRetries < limit else { return false }
                state.processedRetries += 1
            } else {
                guard state.unsentBounces < Self.maxUnsentBounces else { return false }
                state.unsentBounces += 1
            }
            state.phase = .pending
            return true
        }
    }

    /// Records that a connection handed the request back before opening a stream for it.
    ///
    /// - Returns: `false` if it bounced too often; fail it instead of retrying.
    func noteUnsentBounce() -> Bool {
        self.state.withLock { state in
            guard state.unsentBounces < Self.maxUnsentBounces else { return false }
            state.unsentBounces += 1
            return true
        }
    }

    /// Marks cancellation and reports where the request is, so the caller can reach it.
    func requestCancellation() -> Phase {
        self.state.withLock { state in
            state.cancelRequested = true
            return state.phase
        }
    }

    /// Completes the request; later calls are ignored.
    ///
    /// - Returns: `true` if this call completed it.
    @discardableResult
    func finish(_ result: Result<HTTP2Response, HTTP2ClientError>) -> Bool {
        let completion = self.state.withLock { state -> Completion? in
            if case .finished = state.phase { return nil }
            state.phase = .finished
            defer { state.completion = nil }
            return state.completion
        }
        guard let completion else { return false }
        Self.complete(completion, with: result)
        return true
    }

    private static func complete(_ completion: Completion, with result: Result<HTTP2Response, HTTP2ClientError>) {
        switch completion {
        case .continuation(let continuation):
            continuation.resume(returning: result)
        case .batch(let batch, let index):
            batch.requestCompleted(index, with: result)
        }
    }
}
