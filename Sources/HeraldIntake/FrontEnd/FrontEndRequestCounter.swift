import Metrics

/// A front-end's own request counter, `<label>{<source>,result[,reason]}`: every request (a
/// datagram, a socket message) of each of its inputs, by what became of it; refusals also name
/// their reason.
///
/// The intake's counters see only what reached it; this one also counts what a front-end refused
/// in its own protocol before that.
public struct FrontEndRequestCounter: Sendable {
    private let label: String
    private let sourceDimension: String
    private let factory: any MetricsFactory

    /// A counter named `label` whose inputs are told apart by the dimension `sourceDimension`
    /// (such as `port` or `socket`).
    public init(label: String, sourceDimension: String, factory: any MetricsFactory) {
        self.label = label
        self.sourceDimension = sourceDimension
        self.factory = factory
    }

    /// Counts a request of `source` that ended as `result`; `reason` names why it was refused.
    public func count(_ source: String, result: String, reason: String? = nil) {
        var dimensions = [(sourceDimension, source)]
        if let reason { dimensions.append(("reason", reason)) }
        dimensions.append(("result", result))
        Counter(label: label, dimensions: dimensions, factory: factory).increment()
    }
}
