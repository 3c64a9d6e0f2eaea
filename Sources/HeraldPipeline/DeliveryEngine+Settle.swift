import HeraldCore
import HeraldStore
import Logging

extension DeliveryEngine {
    /// Turns outcomes into store effects and retries (§11.1), in as few store calls as possible.
    func settle(
        _ attempts: [DeliveryAttempt], results: [AttemptResult], notification: PublishedEvent,
        statisticsEvent: EventName?, publishedAt: Int64
    ) async throws {
        let nowMillis = nowMillis()
        let deadline = notification.deadline(publishedAt: publishedAt)
        var records: [DeliveryRecord] = []
        var newRetries: [RetryEntry] = []
        var rescheduled: [(id: Int64, attempts: Int, dueAt: Int64, reason: String?)] = []
        var finishedRetries: [Int64] = []
        var replacements: [TokenReplacement] = []
        records.reserveCapacity(attempts.count)

        for (attempt, result) in zip(attempts, results) {
            let subscriber = attempt.subscriber
            func record(_ effect: DeliveryRecord.Effect) {
                // Failures for good are kept as dead letters; a dead token's subscriber is gone, so its letter could never be replayed.
                var deadLetter: DeadLetterContent?
                switch effect {
                case .failed, .subscriberFailure:
                    deadLetter = DeadLetterContent(
                        notification: notification, silent: attempt.silent, badge: attempt.badge,
                        attempts: attempt.attemptsBefore + 1, publishedAt: publishedAt)
                    metrics.recordDeadLetter(provider: subscriber.proto)
                case .delivered, .deadToken:
                    break
                }
                records.append(DeliveryRecord(
                    subscriberID: subscriber.id, proto: subscriber.proto, token: subscriber.token,
                    statisticsEvent: statisticsEvent, effect: effect, deadLetter: deadLetter))
            }
            guard case .outcome(let outcome) = result else {
                if let retryID = attempt.retryID { finishedRetries.append(retryID) }
                continue
            }
            let reason = outcome.reason ?? outcome.outcome.rawValue
            var retrying = false
            switch outcome.outcome {
            case .delivered:
                record(.delivered)
                if let newToken = outcome.replacementToken,
                    let normalized = providers[subscriber.proto]?.normalizeToken(TokenInput(token: .string(newToken)))
                {
                    replacements.append(TokenReplacement(
                        subscriberID: subscriber.id, proto: subscriber.proto, oldToken: subscriber.token,
                        newToken: normalized.token, identity: normalized.identity))
                }
            case .deadToken:
                record(.deadToken(reason: reason, status: outcome.status, invalidSince: outcome.invalidSince))
            case .subscriberFailure:
                record(.subscriberFailure(reason: reason, status: outcome.status))
            case .messageFailure:
                record(.failed(reason: reason, status: outcome.status))
            case .configurationFailure:
                logger.error("provider configuration failure", metadata: [
                    "provider": "\(subscriber.proto)", "reason": "\(reason)", "status": "\(outcome.status.map(String.init) ?? "-")",
                ])
                record(.failed(reason: reason, status: outcome.status))
            case .transient:
                let attemptsMade = attempt.attemptsBefore + 1
                let delay = policy.retryDelay(afterAttempts: attemptsMade, retryAfter: outcome.retryAfter)
                let dueAt = nowMillis + delay.milliseconds
                let expiresFirst = deadline.map { dueAt / 1000 > $0 } ?? false
                let tooOld = policy.maxRetryAge.map { dueAt - publishedAt * 1000 > $0.milliseconds } ?? false
                if attemptsMade < policy.maxAttempts && !expiresFirst && !tooOld {
                    retrying = true
                    if let retryID = attempt.retryID {
                        rescheduled.append((retryID, attemptsMade, dueAt, reason))
                    } else {
                        newRetries.append(RetryEntry(
                            subscriberID: subscriber.id, statisticsEvent: statisticsEvent, notification: notification,
                            silent: attempt.silent, badge: attempt.badge, attempts: attemptsMade, dueAt: dueAt,
                            publishedAt: publishedAt, lastReason: reason))
                    }
                    metrics.recordRetry(provider: subscriber.proto)
                } else if providers[subscriber.proto]?.exhaustedRetriesCountAgainstSubscriber ?? false {
                    record(.subscriberFailure(reason: reason, status: outcome.status))
                } else {
                    record(.failed(reason: expiresFirst ? "Expired" : tooOld ? "MaxRetryAge" : reason, status: outcome.status))
                }
            }
            if !retrying, let retryID = attempt.retryID { finishedRetries.append(retryID) }
        }

        if !records.isEmpty {
            let summary = try await store.record(records, maxFailures: policy.maxFailures, now: nowMillis / 1000)
            for (id, reason) in summary.unregistered {
                logger.info("subscriber unregistered", metadata: ["subscriber": "\(id)", "reason": "\(reason)"])
                metrics.recordUnregistration(reason: reason)
            }
        }
        if !replacements.isEmpty {
            for id in try await store.replaceTokens(replacements, now: nowMillis / 1000) {
                logger.info("subscriber unregistered", metadata: ["subscriber": "\(id)", "reason": "CanonicalRegistrationID"])
                metrics.recordUnregistration(reason: "CanonicalRegistrationID")
            }
        }
        if !newRetries.isEmpty {
            try await store.scheduleRetries(newRetries)
            retryWakeUp.notify()
        }
        for retry in rescheduled {
            try await store.rescheduleRetry(id: retry.id, attempts: retry.attempts, dueAt: retry.dueAt, lastReason: retry.reason)
        }
        for id in finishedRetries { try await store.completeRetry(id: id) }
    }
}
