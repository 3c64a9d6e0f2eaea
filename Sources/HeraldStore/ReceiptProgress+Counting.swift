extension ReceiptProgress {
    /// Counts one settled delivery: a first attempt also counts as a member reached.
    public mutating func count(_ effect: DeliveryRecord.Effect, firstAttempt: Bool, deadLettered: Bool) {
        if firstAttempt { reached += 1 }
        switch effect {
        case .delivered:
            delivered += 1
        case .deadToken(let reason, _, _), .subscriberFailure(let reason, _), .failed(let reason, _):
            failed += 1
            failures[reason, default: 0] += 1
            if deadLettered { self.deadLettered += 1 }
        }
    }

    /// Counts `times` members reached that failed for `reason` before any attempt.
    public mutating func count(failure reason: String, times: Int) {
        reached += times
        failed += times
        failures[reason, default: 0] += times
    }

    /// Counts a delivery not sent by design.
    public mutating func countSkipped(firstAttempt: Bool) {
        if firstAttempt { reached += 1 }
        skipped += 1
    }
}

extension ReceiptProgress {
    /// Adds `other`'s counts to these.
    public mutating func add(_ other: ReceiptProgress) {
        reached += other.reached
        delivered += other.delivered
        failed += other.failed
        skipped += other.skipped
        deadLettered += other.deadLettered
        for (reason, count) in other.failures { failures[reason, default: 0] += count }
    }
}
