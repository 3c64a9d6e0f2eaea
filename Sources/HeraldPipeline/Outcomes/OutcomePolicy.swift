import HeraldCore
import HeraldStore

/// What an attempt's result does (pushd-api.md §11.1): retry, defer, give up, dead-letter,
/// unregister, replace a token, count in a receipt.
///
/// A value with no clock, store or provider in it: the result, the attempt and its publication
/// go in with the time, a list of ``OutcomeEffect``s comes out, and ``DeliveryEngine`` applies
/// them to the next settlement. The rules:
/// - A delivery is recorded; a token the service named instead is stored.
/// - A dead token, a subscriber failure, a message failure or a configuration failure is recorded
///   at once; the last two (and subscriber failures) are kept as dead letters, a dead token's is
///   not (its subscriber is unregistered, so the letter could never be replayed).
/// - A transient failure is tried again after the backoff (never before the service's
///   `Retry-After`), unless the attempts run out, the content expires first or the publication
///   would be older than `max_retry_age`: then it fails for good, as `Expired`, `MaxRetryAge` or
///   its own reason, and counts against the subscriber where its provider says so (webhooks).
/// - A delivery its destination's open breaker held back was no attempt: it is tried again when
///   the breaker lets one through (with a little jitter), its count unchanged, under the same
///   limits.
/// - A delivery skipped by design (a silent toast) only counts in the receipt.
/// - A queued delivery that is not tried again is finished.
/// - Every first attempt counts its publish's subscriber as reached in the receipt.
struct OutcomePolicy: Sendable {
    /// Attempts, retries, backoff and `max_retry_age` (`delivery:`).
    var delivery: DeliveryPolicy
    /// The providers whose exhausted retries count against the subscriber's failures
    /// (``PushProvider/exhaustedRetriesCountAgainstSubscriber``).
    var exhaustedRetriesCountAgainstSubscriber: Set<String>

    /// Creates a policy.
    init(delivery: DeliveryPolicy, exhaustedRetriesCountAgainstSubscriber: Set<String> = []) {
        self.delivery = delivery
        self.exhaustedRetriesCountAgainstSubscriber = exhaustedRetriesCountAgainstSubscriber
    }

    /// The effects of `result` for `attempt`, a delivery of `publication`, decided at `nowMillis`
    /// (Unix milliseconds); `random` spreads retry times.
    func effects(
        of result: AttemptResult, for attempt: DeliveryAttempt, of publication: Publication, nowMillis: Int64,
        using random: inout some RandomNumberGenerator
    ) -> [OutcomeEffect] {
        var effects: [OutcomeEffect] = []
        let firstAttempt = attempt.retryID == nil
        var receipt = ReceiptProgress()
        var retrying = false

        func record(_ effect: DeliveryRecord.Effect) {
            let deadLetter: Bool
            switch effect {
            case .failed, .subscriberFailure: deadLetter = true
            case .delivered, .deadToken: deadLetter = false
            }
            effects.append(.record(effect, deadLetter: deadLetter))
            receipt.count(effect, firstAttempt: firstAttempt, deadLettered: deadLetter)
        }

        /// Tries again at `dueAt` with `attemptsMade` counted, unless the attempts run out or the
        /// publication expires or grows too old first; then fails for good.
        func retry(attemptsMade: Int, dueAt: Int64, reason: String, status: Int?) {
            let expiresFirst = publication.deadline.map { dueAt / 1000 > $0 } ?? false
            let tooOld = delivery.maxRetryAge.map { dueAt - publication.publishedAt * 1000 > $0.milliseconds } ?? false
            let maxAttempts = min(delivery.maxAttempts, attempt.maxAttempts ?? .max)
            guard attemptsMade < maxAttempts && !expiresFirst && !tooOld else {
                if exhaustedRetriesCountAgainstSubscriber.contains(attempt.proto) {
                    record(.subscriberFailure(reason: reason, status: status))
                } else {
                    record(.failed(reason: expiresFirst ? "Expired" : tooOld ? "MaxRetryAge" : reason, status: status))
                }
                return
            }
            effects.append(.retry(attempts: attemptsMade, dueAt: dueAt, reason: reason))
            if firstAttempt { receipt.reached += 1 }
            retrying = true
        }

        switch result {
        case .skipped:
            receipt.countSkipped(firstAttempt: firstAttempt)
        case .deferred(let until):
            // Not an attempt: the destination's breaker held it back. A little jitter spreads the
            // deliveries that waited when it closes again.
            let jitter = Int64.random(in: 0...max(1, delivery.retryDelay.milliseconds / 2), using: &random)
            retry(attemptsMade: attempt.attemptsBefore, dueAt: max(until, nowMillis) + jitter, reason: "ProviderDown", status: nil)
        case .outcome(let outcome):
            let reason = outcome.reason ?? outcome.outcome.rawValue
            switch outcome.outcome {
            case .delivered:
                record(.delivered)
                if attempt.subscriberID != nil, let newToken = outcome.replacementToken { effects.append(.replaceToken(newToken)) }
            case .deadToken:
                record(.deadToken(reason: reason, status: outcome.status, invalidSince: outcome.invalidSince))
            case .subscriberFailure:
                record(.subscriberFailure(reason: reason, status: outcome.status))
            case .messageFailure:
                record(.failed(reason: reason, status: outcome.status))
            case .configurationFailure:
                effects.append(.reportConfigurationFailure(reason: reason, status: outcome.status))
                record(.failed(reason: reason, status: outcome.status))
            case .transient:
                let attemptsMade = attempt.attemptsBefore + 1
                let delay = delivery.retryDelay(afterAttempts: attemptsMade, retryAfter: outcome.retryAfter, using: &random)
                retry(attemptsMade: attemptsMade, dueAt: nowMillis + delay.milliseconds, reason: reason, status: outcome.status)
            }
        }
        if !retrying && !firstAttempt { effects.append(.finishQueued) }
        if publication.receiptID != nil && receipt != ReceiptProgress() { effects.append(.countInReceipt(receipt)) }
        return effects
    }
}
