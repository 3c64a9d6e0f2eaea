import NIOCore
import Synchronization

/// Many requests sent through one pool with a bound on how many are in flight, awaited as one.
///
/// Each response goes to the batch's handler on the thread that completed it (usually the
/// connection's event loop), which submits the next request from there: a batch costs one task
/// and one continuation instead of one per request, and no hop between the event loops and the
/// concurrency threads per request.
final class HTTP2BatchExecution: Sendable {
    typealias ResponseHandler = @Sendable (Int, Result<HTTP2Response, HTTP2ClientError>) -> Void

    private struct State {
        /// The index of the next request to submit.
        var nextIndex = 0
        /// Requests not yet answered (or failed), submitted or not.
        var unfinished: Int
        /// Free places in the window whose request is not yet submitted.
        var freedSlots = 0
        /// Whether some thread is submitting: a completion met meanwhile only frees a slot, so
        /// that a request failing at submission cannot recurse into the next submission.
        var submitting = false
        var cancelled = false
        /// The contexts submitted and not yet answered, by index, so that cancellation reaches them.
        var inFlight: [HTTP2RequestContext?]
        var continuation: UnsafeContinuation<Void, Never>?
    }

    private let pool: HTTP2ConnectionPool
    private let requests: [HTTP2Request]
    private let deadline: TimeAmount
    private let maxConcurrent: Int
    private let onResponse: ResponseHandler
    private let state: Mutex<State>

    init(pool: HTTP2ConnectionPool, requests: [HTTP2Request], maxConcurrent: Int, deadline: Duration, onResponse: @escaping ResponseHandler) {
        self.pool = pool
        self.requests = requests
        self.deadline = TimeAmount(deadline)
        self.maxConcurrent = max(1, maxConcurrent)
        self.onResponse = onResponse
        self.state = Mutex(State(unfinished: requests.count, inFlight: Array(repeating: nil, count: requests.count)))
    }

    /// Submits the first window and returns once every request is answered.
    func run() async {
        guard !self.requests.isEmpty else { return }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                // Stored before anything is submitted: the last completion resumes it.
                let cancelledBeforeStart = self.state.withLock { state -> Bool in
                    guard state.unfinished > 0 else { return true }
                    state.continuation = continuation
                    state.freedSlots = min(self.maxConcurrent, self.requests.count)
                    state.submitting = true
                    return false
                }
                if cancelledBeforeStart {
                    continuation.resume()
                } else {
                    self.submitFreedSlots()
                }
            }
        } onCancel: {
            self.cancel()
        }
    }

    /// A request of the batch is answered: report it, then let the next one take its place.
    func requestCompleted(_ index: Int, with result: Result<HTTP2Response, HTTP2ClientError>) {
        self.onResponse(index, result)
        let (mustSubmit, continuation) = self.state.withLock { state -> (Bool, UnsafeContinuation<Void, Never>?) in
            state.inFlight[index] = nil
            state.unfinished -= 1
            if !state.cancelled, state.nextIndex + state.freedSlots < self.requests.count {
                state.freedSlots += 1
            }
            let mustSubmit = state.freedSlots > 0 && !state.submitting
            if mustSubmit { state.submitting = true }
            return (mustSubmit, Self.takeContinuationIfDone(&state))
        }
        if mustSubmit {
            self.submitFreedSlots()
        }
        continuation?.resume()
    }

    /// Submits a request for every freed slot until none is left; only one thread at a time runs it.
    private func submitFreedSlots() {
        while true {
            let contexts = self.state.withLock { state -> [(index: Int, context: HTTP2RequestContext)] in
                guard !state.cancelled, state.freedSlots > 0 else {
                    state.freedSlots = 0
                    state.submitting = false
                    return []
                }
                let now = NIODeadline.now()
                let end = min(state.nextIndex + state.freedSlots, self.requests.count)
                var contexts: [(index: Int, context: HTTP2RequestContext)] = []
                contexts.reserveCapacity(end - state.nextIndex)
                for index in state.nextIndex..<end {
                    let context = HTTP2RequestContext(request: self.requests[index], deadline: now + self.deadline)
                    state.inFlight[index] = context
                    contexts.append((index, context))
                }
                state.nextIndex = end
                state.freedSlots = 0
                return contexts
            }
            guard !contexts.isEmpty else { return }
            var started: [HTTP2RequestContext] = []
            started.reserveCapacity(contexts.count)
            for (index, context) in contexts where context.start(.batch(self, index: index)) {
                started.append(context)
            }
            self.pool.submit(contentsOf: started)
        }
    }

    /// The calling task was cancelled: fail what was not submitted, cancel what is in flight.
    private func cancel() {
        let (unsubmitted, inFlight) = self.state.withLock { state -> (Range<Int>, [HTTP2RequestContext]) in
            state.cancelled = true
            let unsubmitted = state.nextIndex..<self.requests.count
            state.nextIndex = self.requests.count
            return (unsubmitted, state.inFlight.compactMap { $0 })
        }
        for index in unsubmitted {
            self.onResponse(index, .failure(.cancelled(mayHaveBeenProcessed: false)))
        }
        // Counted as finished only once reported, so that the caller never sees a missing answer.
        let continuation = self.state.withLock { state in
            state.unfinished -= unsubmitted.count
            return Self.takeContinuationIfDone(&state)
        }
        for context in inFlight {
            self.pool.cancel(context)
        }
        continuation?.resume()
    }

    private static func takeContinuationIfDone(_ state: inout State) -> UnsafeContinuation<Void, Never>? {
        guard state.unfinished == 0 else { return nil }
        defer { state.continuation = nil }
        return state.continuation
    }
}
