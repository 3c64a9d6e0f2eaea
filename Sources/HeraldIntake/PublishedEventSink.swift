import HeraldCore

/// Where accepted events go at once, besides the durable queue: the Server-Sent Events listeners.
public protocol PublishedEventSink: Sendable {
    /// Hands an accepted event to its live listeners; never blocks.
    func publish(_ notification: PublishedEvent)
}
