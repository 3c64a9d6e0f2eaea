import NIOCore

extension Duration {
    /// The same span as a NIO `TimeAmount` (whole nanoseconds, saturating).
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .nanoseconds(Int64.max) }
        return .nanoseconds(scaled + attoseconds / 1_000_000_000)
    }
}
