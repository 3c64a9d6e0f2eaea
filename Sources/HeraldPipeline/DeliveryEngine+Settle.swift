import HeraldCore
import HeraldStore
import Logging

/// Where a group of attempts comes from, for settling their outcomes.
struct SettlementContext: Sendable {
    /// What was sent.
    var notification: DeliveryContent
    /// The front-end it came through.
    var origin: DeliveryOrigin
    /// The statistics row the deliveries count in, if any.
    var statisticsEvent: EventName?
    /// Unix seconds when it was published.
    var publishedAt: Int64
    /// The job the attempts belong to; `nil` for retries.
    var job: JobTracker?
    /// The publish whose receipt the outcomes count in, if any.
    var receiptID: String?

    /// The sender's own id for the notification, for its feedback.
    var reference: String? {
        if case .prepared(let payload) = notification { payload.reference } else { nil }
    }

    /// The key a waiter for the first answers listens under, if one may.
    var receipt: String? {
        if case .prepared(let payload) = notification { payload.receipt } else { nil }
    }

    /// The publish id every attempt of `attempt` is sent as a delivery of.
    ///
    /// The content's own id when it has one (everything accepted since it was introduced). For
    /// content stored before, the job's id for a first attempt and the queued row's for a retry: each
    /// stable for what it covers, since a rescheduled retry keeps its row.
    func publishID(of attempt: DeliveryAttempt) -> String? {
        if let id = notification.publishID { return id }
        if let retryID = attempt.retryID { return "queued-\(retryID)" }
        if let job { return "job-\(job.job.id)" }
        return nil
    }
}

extension DeliveryEngine {
    /// Hands one outcome to the settler (and, for an awaited send's first attempt, to its waiter).
    func settle(_ attempt: DeliveryAttempt, _ result: AttemptResult, context: SettlementContext) {
        if let receipt = context.receipt { observe(attempt, result, receipt: receipt) }
        let now = clock.nowMillis()
        let deadline = context.notification.deadline(publishedAt: context.publishedAt)
        // One id, without an array per outcome: this runs for every answer of a fan-out. Only a
        // subscriber's attempt can belong to a job; a raw token's never does (its id is not read).
        let settled = CollectionOfOne(attempt.subscriberID ?? SubscriberID(rawValue: "")).prefix(context.job == nil ? 0 : 1)
        settler.submit(job: context.job, settled: settled, retries: attempt.retryID == nil ? 0 : 1) { settlement in
            addEffects(of: result, for: attempt, context: context, deadline: deadline, nowMillis: now, to: &settlement)
        }
    }

    /// Hands outcomes to the settler, together.
    func settle(_ results: [(DeliveryAttempt, AttemptResult)], context: SettlementContext) {
        guard !results.isEmpty else { return }
        if results.count == 1 {
            settle(results[0].0, results[0].1, context: context)
            return
        }
        if let receipt = context.receipt {
            for (attempt, result) in results { observe(attempt, result, receipt: receipt) }
        }
        let now = clock.nowMillis()
        let deadline = context.notification.deadline(publishedAt: context.publishedAt)
        let settled = context.job == nil ? [] : results.compactMap(\.0.subscriberID)
        let retries = results.reduce(0) { $0 + ($1.0.retryID == nil ? 0 : 1) }
        settler.submit(job: context.job, settled: settled, retries: retries) { settlement in
            for (attempt, result) in results {
                addEffects(of: result, for: attempt, context: context, deadline: deadline, nowMillis: now, to: &settlement)
            }
        }
    }

    /// Hands the answer to a first attempt to its waiter; a deferred or skipped delivery got none.
    private func observe(_ attempt: DeliveryAttempt, _ result: AttemptResult, receipt: String) {
        guard attempt.attemptsBefore == 0, case .outcome(let outcome) = result else { return }
        observers.report(receipt: receipt, token: attempt.token, outcome: outcome)
    }

    /// Turns one outcome into its effects on the store (§11.1): statistics, failure counters,
    /// unregistration, feedback and dead letters, or a retry.
    private func addEffects(
        of result: AttemptResult, for attempt: DeliveryAttempt, context: SettlementContext, deadline: Int64?, nowMillis: Int64,
        to settlement: inout Settlement
    ) {
        func record(_ effect: DeliveryRecord.Effect) {
            // Failures for good are kept as dead letters; a dead token's subscriber is gone, so its letter could never be replayed.
            var deadLetter: DeadLetterContent?
            switch effect {
            case .failed, .subscriberFailure:
                deadLetter = DeadLetterContent(
                    notification: context.notification, silent: attempt.silent, badge: attempt.badge,
                    attempts: attempt.attemptsBefore + 1, maxAttempts: attempt.maxAttempts, publishedAt: context.publishedAt)
                metrics.recordDeadLetter(provider: attempt.proto)
            case .delivered, .deadToken:
                break
            }
            if let receiptID = context.receiptID {
                settlement.receipts[receiptID, default: ReceiptProgress()].count(
                    effect, firstAttempt: attempt.retryID == nil, deadLettered: deadLetter != nil)
            }
            settlement.records.append(DeliveryRecord(
                subscriberID: attempt.subscriberID, origin: context.origin, reference: context.reference, proto: attempt.proto, token: attempt.token,
                statisticsEvent: context.statisticsEvent, effect: effect, deadLetter: deadLetter, resetsFailures: attempt.resetsFailures))
        }
        /// Tries again at `dueAt` with `attemptsMade` counted, unless the notification expires or grows too old first.
        func retry(attemptsMade: Int, dueAt: Int64, reason: String, status: Int?) -> Bool {
            let expiresFirst = deadline.map { dueAt / 1000 > $0 } ?? false
            let tooOld = policy.maxRetryAge.map { dueAt - context.publishedAt * 1000 > $0.milliseconds } ?? false
            let maxAttempts = min(policy.maxAttempts, attempt.maxAttempts ?? .max)
            guard attemptsMade < maxAttempts && !expiresFirst && !tooOld else {
                if providers[attempt.proto]?.exhaustedRetriesCountAgainstSubscriber ?? false {
                    record(.subscriberFailure(reason: reason, status: status))
                } else {
                    record(.failed(reason: expiresFirst ? "Expired" : tooOld ? "MaxRetryAge" : reason, status: status))
                }
                return false
            }
            if let retryID = attempt.retryID {
                settlement.rescheduledRetries.append(RetryReschedule(id: retryID, attempts: attemptsMade, dueAt: dueAt, lastReason: reason))
            } else {
                let recipient: Recipient = attempt.subscriberID.map { .subscriber($0) } ?? .token(proto: attempt.proto, token: attempt.token)
                settlement.newRetries.append(QueuedDelivery(
                    recipient: recipient, origin: context.origin, statisticsEvent: context.statisticsEvent, notification: context.notification,
                    silent: attempt.silent, badge: attempt.badge, attempts: attemptsMade, maxAttempts: attempt.maxAttempts, dueAt: dueAt,
                    publishedAt: context.publishedAt, lastReason: reason, receiptID: context.receiptID))
                if let receiptID = context.receiptID { settlement.receipts[receiptID, default: ReceiptProgress()].reached += 1 }
            }
            metrics.recordRetry(provider: attempt.proto)
            return true
        }

        var retrying = false
        switch result {
        case .skipped:
            if let receiptID = context.receiptID {
                settlement.receipts[receiptID, default: ReceiptProgress()].countSkipped(firstAttempt: attempt.retryID == nil)
            }
        case .deferred(let until):
            // Not an attempt: the destination's breaker held it back. A little jitter spreads the
            // deliveries that waited when it closes again.
            let dueAt = max(until, nowMillis) + Int64.random(in: 0...max(1, policy.retryDelay.milliseconds / 2))
            retrying = retry(attemptsMade: attempt.attemptsBefore, dueAt: dueAt, reason: "ProviderDown", status: nil)
        case .outcome(let outcome):
            let reason = outcome.reason ?? outcome.outcome.rawValue
            switch outcome.outcome {
            case .delivered:
                record(.delivered)
                if let subscriberID = attempt.subscriberID, let newToken = outcome.replacementToken,
                    let normalized = providers[attempt.proto]?.normalizeToken(TokenInput(token: .string(newToken)))
                {
                    settlement.replacements.append(TokenReplacement(
                        subscriberID: subscriberID, proto: attempt.proto, oldToken: attempt.token,
                        newToken: normalized.token, identity: normalized.identity, origin: context.origin))
                }
            case .deadToken:
                record(.deadToken(reason: reason, status: outcome.status, invalidSince: outcome.invalidSince))
            case .subscriberFailure:
                record(.subscriberFailure(reason: reason, status: outcome.status))
            case .messageFailure:
                record(.failed(reason: reason, status: outcome.status))
            case .configurationFailure:
                logger.error("provider configuration failure", metadata: [
                    "provider": "\(attempt.proto)", "reason": "\(reason)", "status": "\(outcome.status.map(String.init) ?? "-")",
                ])
                record(.failed(reason: reason, status: outcome.status))
            case .transient:
                let attemptsMade = attempt.attemptsBefore + 1
                let delay = policy.retryDelay(afterAttempts: attemptsMade, retryAfter: outcome.retryAfter)
                retrying = retry(attemptsMade: attemptsMade, dueAt: nowMillis + delay.milliseconds, reason: reason, status: outcome.status)
            }
        }
        if !retrying, let retryID = attempt.retryID { settlement.finishedRetries.append(retryID) }
    }
}
