import HeraldIntake
import HeraldStore
import NIOCore

/// One subscription's response body: `open`, the stored messages after its cursor, then (unless it
/// polls) live ones as the hub or its own timer wakes it, with a `keepalive` every `keepalive`.
struct UnifiedPushStream: Sendable {
    let topics: [String]
    let intake: Intake
    let keepalive: Duration
    /// How events are framed.
    let framing: Framing
    /// When the subscription started (Unix seconds).
    let opened: Int64
    /// The hub's wake-ups; `nil` for `poll=1`, which answers what is stored and ends.
    let wakes: (stream: AsyncStream<UnifiedPushHub.Wake>, continuation: AsyncStream<UnifiedPushHub.Wake>.Continuation)?

    /// How a subscription's events are framed.
    enum Framing: Sendable {
        /// `/json`: one JSON object per line.
        case lines
        /// `/sse`: Server-Sent Events, a message with its `id:`.
        case serverSentEvents
        /// `/ws`: one JSON object per WebSocket text message.
        case webSocket
    }

    /// Emits the events through `emit` until the client goes away (a write fails), or, polling,
    /// until the stored messages are out.
    func run(from start: PushCursor, emit: (ByteBuffer) async throws -> Void) async throws {
        var cursor = start
        guard let wakes else {
            try await drain(&cursor, emit: emit)
            return
        }
        try await emit(frame(UnifiedPushEvent.control("open", topics: topics, id: UnifiedPushRoutes.newMessageID(), time: opened), "open", nil))
        try await drain(&cursor, emit: emit)
        // The timer wakes the subscription too: for pushes another node accepted, and keepalives.
        let period = min(UnifiedPushRoutes.pollInterval, keepalive)
        let timer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: period)
                wakes.continuation.yield(.stored)
            }
        }
        defer {
            timer.cancel()
            wakes.continuation.finish()
        }
        var lastKeepalive = ContinuousClock.now
        var lastTouch = ContinuousClock.now
        for await wake in wakes.stream {
            if case .transient(let message) = wake {
                try await emit(frame(UnifiedPushEvent.message(message), "message", message.id))
            }
            try await drain(&cursor, emit: emit)
            if ContinuousClock.now - lastKeepalive >= keepalive {
                lastKeepalive = .now
                let event = UnifiedPushEvent.control("keepalive", topics: topics, id: UnifiedPushRoutes.newMessageID(), time: intake.clock.nowSeconds())
                try await emit(frame(event, "keepalive", nil))
            }
            // A connected subscriber keeps its topics from going idle.
            if ContinuousClock.now - lastTouch >= .seconds(60) {
                lastTouch = .now
                await intake.touchPushTopics(topics)
            }
        }
    }

    /// Ends a live subscription: its loop stops at the next wake-up (this one).
    func close() {
        wakes?.continuation.finish()
    }

    /// Writes everything stored after `cursor`, page by page, and moves the cursor past it.
    private func drain(_ cursor: inout PushCursor, emit: (ByteBuffer) async throws -> Void) async throws {
        while true {
            let page = try await intake.pushMessages(of: topics, after: cursor, limit: UnifiedPushRoutes.pageSize)
            for message in page {
                try await emit(frame(UnifiedPushEvent.message(message), "message", message.id))
                cursor = .afterSequence(message.sequence)
            }
            if page.count < UnifiedPushRoutes.pageSize { return }
        }
    }

    private func frame(_ json: String, _ event: String, _ id: String?) -> ByteBuffer {
        switch framing {
        case .lines: UnifiedPushEvent.jsonLine(json)
        case .serverSentEvents: UnifiedPushEvent.sseFrame(json, event: event, id: id)
        case .webSocket: ByteBuffer(string: json)
        }
    }
}
