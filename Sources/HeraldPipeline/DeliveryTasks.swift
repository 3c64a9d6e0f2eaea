import ServiceLifecycle

/// Runs the pipeline's deliveries (a fan-out page, a round of retries) apart from the workers
/// that read them, so a worker goes on to the next page or job while slow deliveries are out.
///
/// On graceful shutdown it runs after the workers stopped handing work over: it lets what is in
/// flight finish for ``DeliveryPolicy/shutdownGracePeriod``, then cancels the rest, whose
/// deliveries stay pending and are sent again by the next start.
public final class DeliveryTasks: Service, CustomStringConvertible {
    public var description: String { "DeliveryTasks" }

    private let stream: AsyncStream<@Sendable () async -> Void>
    private let continuation: AsyncStream<@Sendable () async -> Void>.Continuation
    private let grace: Duration

    /// Creates the runner; `grace` bounds how long shutdown waits for deliveries in flight.
    public init(grace: Duration) {
        (stream, continuation) = AsyncStream.makeStream()
        self.grace = grace
    }

    /// Hands work over; `false` once shutdown began (the work's deliveries stay pending).
    @discardableResult
    func submit(_ work: @escaping @Sendable () async -> Void) -> Bool {
        if case .enqueued = continuation.yield(work) { return true }
        return false
    }

    public func run() async {
        let stream = self.stream
        let continuation = self.continuation
        await withShutdownGracePeriod(grace) {
            await withGracefulShutdownHandler {
                await withDiscardingTaskGroup { group in
                    for await work in stream {
                        group.addTask { await work() }
                    }
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
        }
    }
}
