import HeraldCore
import HeraldStore
import Logging

extension DeliveryEngine {
    /// Hands one outcome to the settler (and, for an awaited send's first attempt, to its waiter).
    ///
    /// `job` is the job the attempt belongs to, if any (never for a queued delivery).
    func settle(_ attempt: DeliveryAttempt, _ result: AttemptResult, of publication: Publication, job: JobTracker?) {
        if let waiter = publication.waiterKey { observe(attempt, result, waiter: waiter) }
        var random = SystemRandomNumberGenerator()
        let effects = outcomePolicy.effects(of: result, for: attempt, of: publication, nowMillis: clock.nowMillis(), using: &random)
        // Only a subscriber's attempt can belong to a job; a raw token's never does.
        let settled = job == nil ? nil : attempt.subscriberID
        settler.submit(job: job, settled: settled, retries: attempt.retryID == nil ? 0 : 1) { settlement in
            apply(effects, of: attempt, of: publication, to: &settlement)
        }
    }

    /// Hands outcomes of one publication to the settler, together.
    func settle(_ results: [(DeliveryAttempt, AttemptResult)], of publication: Publication, job: JobTracker?) {
        guard !results.isEmpty else { return }
        if results.count == 1 {
            settle(results[0].0, results[0].1, of: publication, job: job)
            return
        }
        if let waiter = publication.waiterKey {
            for (attempt, result) in results { observe(attempt, result, waiter: waiter) }
        }
        var random = SystemRandomNumberGenerator()
        let now = clock.nowMillis()
        let effects = results.map { outcomePolicy.effects(of: $0.1, for: $0.0, of: publication, nowMillis: now, using: &random) }
        let settled = job == nil ? [] : results.compactMap(\.0.subscriberID)
        let retries = results.reduce(0) { $0 + ($1.0.retryID == nil ? 0 : 1) }
        settler.submit(job: job, settled: settled, retries: retries) { settlement in
            for (index, (attempt, _)) in results.enumerated() {
                apply(effects[index], of: attempt, of: publication, to: &settlement)
            }
        }
    }

    /// Hands the answer to a first attempt to its waiter; a deferred or skipped delivery got none.
    private func observe(_ attempt: DeliveryAttempt, _ result: AttemptResult, waiter: String) {
        guard attempt.attemptsBefore == 0, case .outcome(let outcome) = result else { return }
        observers.report(receipt: waiter, token: attempt.token, outcome: outcome)
    }

    /// Writes what ``OutcomePolicy`` decided into the settlement, with its metrics and logs.
    private func apply(_ effects: [OutcomeEffect], of attempt: DeliveryAttempt, of publication: Publication, to settlement: inout Settlement) {
        for effect in effects {
            switch effect {
            case .record(let recorded, let keepsDeadLetter):
                var deadLetter: DeadLetterContent?
                if keepsDeadLetter {
                    deadLetter = DeadLetterContent(
                        publication: publication, silent: attempt.silent, badge: attempt.badge, attempts: attempt.attemptsBefore + 1,
                        maxAttempts: attempt.maxAttempts)
                    metrics.recordDeadLetter(provider: attempt.proto)
                }
                settlement.records.append(DeliveryRecord(
                    subscriberID: attempt.subscriberID, origin: publication.origin, reference: publication.reference, proto: attempt.proto,
                    token: attempt.token, statisticsEvent: publication.statisticsEvent, effect: recorded, deadLetter: deadLetter,
                    resetsFailures: attempt.resetsFailures))
            case .retry(let attempts, let dueAt, let reason):
                if let retryID = attempt.retryID {
                    settlement.rescheduledRetries.append(RetryReschedule(id: retryID, attempts: attempts, dueAt: dueAt, lastReason: reason))
                } else {
                    let recipient: Recipient = attempt.subscriberID.map { .subscriber($0) } ?? .token(proto: attempt.proto, token: attempt.token)
                    settlement.newRetries.append(QueuedDelivery(
                        recipient: recipient, publication: publication, silent: attempt.silent, badge: attempt.badge, attempts: attempts,
                        maxAttempts: attempt.maxAttempts, dueAt: dueAt, lastReason: reason))
                }
                metrics.recordRetry(provider: attempt.proto)
            case .finishQueued:
                if let retryID = attempt.retryID { settlement.finishedRetries.append(retryID) }
            case .replaceToken(let newToken):
                guard let subscriberID = attempt.subscriberID,
                    let normalized = providers[attempt.proto]?.normalizeToken(TokenInput(token: .string(newToken)))
                else { continue }
                settlement.replacements.append(TokenReplacement(
                    subscriberID: subscriberID, proto: attempt.proto, oldToken: attempt.token, newToken: normalized.token,
                    identity: normalized.identity, origin: publication.origin))
            case .countInReceipt(let progress):
                guard let receiptID = publication.receiptID else { continue }
                settlement.receipts[receiptID, default: ReceiptProgress()].add(progress)
            case .reportConfigurationFailure(let reason, let status):
                logger.error("provider configuration failure", metadata: [
                    "provider": "\(attempt.proto)", "reason": "\(reason)", "status": "\(status.map(String.init) ?? "-")",
                ])
            }
        }
    }
}

extension Publication {
    /// The key a waiter for the first answers listens under, if one may (an awaited raw send).
    var waiterKey: String? {
        if case .prepared(let payload) = content { payload.receipt } else { nil }
    }

    /// The publish id every attempt of `attempt` is sent as a delivery of.
    ///
    /// The content's own id when it has one (everything accepted since it was introduced). For
    /// content stored before, the job's id for a first attempt and the queued row's for a retry:
    /// each stable for what it covers, since a rescheduled retry keeps its row.
    func publishID(of attempt: DeliveryAttempt, job: JobTracker?) -> String? {
        if let id = content.publishID { return id }
        if let retryID = attempt.retryID { return "queued-\(retryID)" }
        if let job { return "job-\(job.job.id)" }
        return nil
    }
}
