import Logging

extension DeliveryTarget {
    /// `report`, wrapped to log at debug each send of `targets` (by index) that was not delivered:
    /// the subscriber, the token's first characters (never the whole token) and the outcome.
    ///
    /// For the kinds that send a page of deliveries at once (FCM, Push Kit), whose answers come
    /// back by index.
    public static func loggingUndelivered<Message>(
        _ deliveries: [(message: Message, target: DeliveryTarget)], as label: String, logger: Logger,
        report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) -> @Sendable (Int, DeliveryOutcome) -> Void where Message: Sendable {
        let targets = deliveries.map(\.target)
        return { index, outcome in
            if outcome.outcome != .delivered {
                let target = targets[index]
                logger.debug("\(label) send not delivered", metadata: [
                    "subscriber": "\(target.subscriberID?.rawValue ?? "-")", "token": "\(target.token.prefix(8))…",
                    "outcome": "\(outcome.outcome)", "reason": "\(outcome.reason ?? "-")",
                ])
            }
            report(index, outcome)
        }
    }
}
