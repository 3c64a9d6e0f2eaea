import HeraldCore
import HeraldStore
import Logging
import Metrics
import Synchronization

/// Renders and sends deliveries and hands each outcome to the settler as it arrives: the work
/// shared by fan-out and retries.
///
/// Each provider of a page is sent to at once and on its own, within its bulkhead, so a push
/// service or host that hangs delays none of the others.
public struct DeliveryEngine: Sendable {
    let store: any DeliverySettlement & PublishQueue & SubscriberStore & StoreRuntime
    let providers: ProviderSet
    let policy: DeliveryPolicy
    /// What each attempt's result does.
    let outcomePolicy: OutcomePolicy
    let logger: Logger
    let metrics: PipelineMetrics
    /// The clock every part of the pipeline reads: the store's.
    public let clock: WallClock
    let bulkheads: ProviderBulkheads
    /// Records outcomes in group commits; a service of its own.
    public let settler: OutcomeSettler
    /// Runs the deliveries; a service of its own.
    public let tasks: DeliveryTasks
    /// Wakes the retry service when a retry is scheduled, so short first delays are honoured.
    public let retryWakeUp: WakeUpSignal
    /// Where the first answers of awaited sends go.
    public let observers = DeliveryObservers()

    /// Records `herald_deliveries_in_flight{provider}` now (called when the metrics are read).
    public func sampleInFlight() {
        bulkheads.sampleInFlight()
    }

    /// Creates an engine; `owner` identifies this process in leases.
    public init(
        store: any DeliverySettlement & PublishQueue & SubscriberStore & StoreRuntime,
        providers: ProviderSet,
        policy: DeliveryPolicy,
        owner: String,
        logger: Logger,
        retryWakeUp: WakeUpSignal = WakeUpSignal(),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.store = store
        self.providers = providers
        self.policy = policy
        self.outcomePolicy = OutcomePolicy(
            delivery: policy,
            exhaustedRetriesCountAgainstSubscriber: Set(providers.byName.filter { $0.value.exhaustedRetriesCountAgainstSubscriber }.keys))
        self.logger = logger
        let metrics = PipelineMetrics(providerNames: Array(providers.byName.keys), factory: metricsFactory)
        self.metrics = metrics
        let clock = store.clock
        self.clock = clock
        self.retryWakeUp = retryWakeUp
        self.bulkheads = ProviderBulkheads(limits: policy.bulkheadLimits(for: providers), logger: logger, factory: metricsFactory)
        self.settler = OutcomeSettler(
            store: store, policy: policy, owner: owner, logger: logger, metrics: metrics, retryWakeUp: retryWakeUp, clock: clock)
        self.tasks = DeliveryTasks(grace: policy.shutdownGracePeriod)
    }

    /// Delivers one page of a job's audience; outcomes are settled as they arrive.
    ///
    /// - Returns: the provider names that are no longer configured, met in this page.
    func deliverPage(_ members: [AudienceMember], of tracker: JobTracker) async -> Set<String> {
        let job = tracker.job
        var unknownProviders: Set<String> = []
        var skipped: [FeedbackEntry] = []
        // Members are read in place, by index, and the page is copied only when a provider is
        // missing: copying each member copied (retained and released) all its strings.
        var known = members
        // Another app's subscribers of the same event are no part of this publish: settled with
        // nothing recorded, as if the page had not held them.
        if case .event(let event) = job.content, let only = event.onlyProviders,
            members.contains(where: { !only.contains($0.subscriber.proto) })
        {
            known = members.filter { only.contains($0.subscriber.proto) }
            let others = members.filter { !only.contains($0.subscriber.proto) }.map(\.subscriber.id)
            settler.submit(job: tracker, settled: others, retries: 0) { _ in }
        }
        if known.contains(where: { providers[$0.subscriber.proto] == nil }) {
            let members = known
            known = []
            let now = clock.nowSeconds()
            for index in members.indices {
                let subscriber = members[index].subscriber
                if providers[subscriber.proto] == nil {
                    unknownProviders.insert(subscriber.proto)
                    skipped.append(FeedbackEntry(
                        time: now, subscriberID: subscriber.id, origin: job.origin, proto: subscriber.proto,
                        token: subscriber.token, status: nil, reason: "UnknownProvider", action: .skipped))
                } else {
                    known.append(members[index])
                }
            }
        }
        if !skipped.isEmpty {
            let receiptID = job.publication.receiptID
            settler.submit(job: tracker, settled: skipped.compactMap(\.subscriberID), retries: 0) { settlement in
                settlement.feedback.append(contentsOf: skipped)
                if let receiptID {
                    settlement.receipts[receiptID, default: ReceiptProgress()].count(failure: "UnknownProvider", times: skipped.count)
                }
            }
        }
        let badges: [Int??]
        if case .event(let event) = job.content {
            guard let counted = await self.badges(for: known, notification: event) else { return unknownProviders }
            badges = counted
        } else {
            badges = Array(repeating: .some(nil), count: known.count)  // a prepared payload carries its own badge, if any
        }
        var attempts: [DeliveryAttempt] = []
        attempts.reserveCapacity(known.count)
        var gone: [SubscriberID] = []
        for index in known.indices {
            guard let badge = badges[index] else {
                gone.append(known[index].subscriber.id)  // deleted meanwhile
                continue
            }
            attempts.append(DeliveryAttempt(
                subscriber: known[index].subscriber, silent: known[index].silent, badge: badge, attemptsBefore: 0, retryID: nil))
        }
        if !gone.isEmpty { settler.submit(job: tracker, settled: gone, retries: 0) { _ in } }
        await run(attempts, of: job.publication, job: tracker)
        return unknownProviders
    }

    /// Warms up the providers of `members` (a fan-out's first page) before its deliveries are
    /// prepared, so that their connections open while the badges are counted.
    func warmUp(for members: [AudienceMember]) {
        var warmed: [String] = []
        for member in members where !warmed.contains(member.subscriber.proto) {
            warmed.append(member.subscriber.proto)
            providers[member.subscriber.proto]?.warmUp()
        }
    }

    /// Makes claimed deliveries from the delivery queue (retries and raw sends); outcomes are
    /// settled as they arrive.
    func deliverRetries(_ entries: [QueuedDelivery]) async {
        let found: [Subscriber]
        do {
            let ids = entries.compactMap(\.subscriberID)
            found = ids.isEmpty ? [] : try await store.subscribers(ids)
        } catch {
            // Put back as they were, claims released, so that they are taken again.
            logger.error("reading the subscribers of retries failed", metadata: ["error": "\(error)"])
            let dueAt = clock.nowMillis() + policy.retryDelay.milliseconds
            settler.submit(job: nil, settled: [], retries: entries.count) { settlement in
                settlement.rescheduledRetries += entries.map {
                    RetryReschedule(id: $0.id, attempts: $0.attempts, dueAt: dueAt, lastReason: $0.lastReason)
                }
            }
            return
        }
        var subscribers: [SubscriberID: Subscriber] = [:]
        for subscriber in found { subscribers[subscriber.id] = subscriber }
        // Deliveries of one publication render once per variant and settle together.
        var groups: [Publication: [DeliveryAttempt]] = [:]
        var ended: [Int64] = []
        var skipped: [FeedbackEntry] = []
        let now = clock.nowSeconds()
        for entry in entries {
            let attempt: DeliveryAttempt
            switch entry.recipient {
            case .subscriber(let id):
                guard let subscriber = subscribers[id], providers[subscriber.proto] != nil else {
                    ended.append(entry.id)
                    continue
                }
                attempt = DeliveryAttempt(
                    subscriber: subscriber, silent: entry.silent, badge: entry.badge, attemptsBefore: entry.attempts,
                    maxAttempts: entry.maxAttempts, retryID: entry.id)
            case .token(let proto, let token):
                guard providers[proto] != nil else {
                    // The provider was removed from the configuration since the send was accepted.
                    ended.append(entry.id)
                    skipped.append(FeedbackEntry(
                        time: now, subscriberID: nil, origin: entry.origin, proto: proto, token: token, status: nil,
                        reason: "UnknownProvider", action: .skipped))
                    continue
                }
                attempt = DeliveryAttempt(proto: proto, token: token, attemptsBefore: entry.attempts, maxAttempts: entry.maxAttempts, retryID: entry.id)
            }
            groups[entry.publication, default: []].append(attempt)
        }
        if !ended.isEmpty {
            settler.submit(job: nil, settled: [], retries: ended.count) { settlement in
                settlement.finishedRetries.append(contentsOf: ended)
                settlement.feedback.append(contentsOf: skipped)
            }
        }
        await withDiscardingTaskGroup { group in
            for (publication, attempts) in groups {
                group.addTask { await run(attempts, of: publication, job: nil) }
            }
        }
    }

    /// Sends attempts of one publication, each provider's on its own; `job` is the job they
    /// belong to, if any.
    func run(_ attempts: [DeliveryAttempt], of publication: Publication, job: JobTracker?) async {
        guard !attempts.isEmpty else { return }
        if let deadline = publication.deadline, clock.nowSeconds() > deadline {
            let expired = DeliveryOutcome(.messageFailure, reason: "Expired")
            settle(attempts.map { ($0, .outcome(expired)) }, of: publication, job: job)
            return
        }
        // Group by provider. Neighbours mostly share a provider (a page usually has one):
        // comparing with the last group is cheaper than hashing.
        var groups: [(name: String, indices: [Int])] = []
        for (index, attempt) in attempts.enumerated() {
            let proto = attempt.proto
            if let last = groups.indices.last, groups[last].name == proto {
                groups[last].indices.append(index)
            } else if let existing = groups.firstIndex(where: { $0.name == proto }) {
                groups[existing].indices.append(index)
            } else {
                groups.append((proto, [index]))
            }
        }
        if groups.count == 1, let provider = providers[groups[0].name] {
            // One provider: its group is every attempt, in order, so the array is shared, not copied.
            await send(attempts, through: provider, of: publication, job: job)
            return
        }
        await withDiscardingTaskGroup { group in
            for (name, indices) in groups {
                guard let provider = providers[name] else { continue }
                let members = indices.map { attempts[$0] }
                group.addTask { await send(members, through: provider, of: publication, job: job) }
            }
        }
    }

    /// Renders once per variant (a prepared payload once) and sends within the provider's bulkhead.
    private func send<Provider: PushProvider>(
        _ attempts: [DeliveryAttempt], through provider: Provider, of publication: Publication, job: JobTracker?
    ) async {
        // What is sent, and for each its attempt.
        var deliveries: [(message: Provider.Message, target: DeliveryTarget)] = []
        var sent: [DeliveryAttempt] = []
        var unsent: [(DeliveryAttempt, AttemptResult)] = []
        deliveries.reserveCapacity(attempts.count)
        sent.reserveCapacity(attempts.count)
        func take(_ render: RenderResult<Provider.Message>, for attempt: DeliveryAttempt) {
            switch render {
            case .send(let message):
                deliveries.append((message, attempt.target(publishID: publication.publishID(of: attempt, job: job))))
                sent.append(attempt)
            case .skip(let reason):
                unsent.append((attempt, .skipped(reason)))
            case .fail(let outcome):
                unsent.append((attempt, .outcome(outcome)))
            }
        }
        switch publication.content {
        case .prepared(let payload):
            // The same for every recipient: checked once.
            let render = provider.render(payload)
            for attempt in attempts { take(render, for: attempt) }
        case .event(let event):
            var rendered: [MessageVariant: RenderResult<Provider.Message>] = [:]
            // Neighbours in a page mostly share a variant: comparing with the last one is cheaper than hashing.
            var last: (variant: MessageVariant, render: RenderResult<Provider.Message>)?
            for attempt in attempts {
                let variant = provider.variant(lang: attempt.lang, silent: attempt.silent, badge: attempt.badge, version: attempt.version)
                let render: RenderResult<Provider.Message>
                if let last, last.variant == variant {
                    render = last.render
                } else if let cached = rendered[variant] {
                    render = cached
                } else {
                    render = provider.render(event, for: variant)
                    rendered[variant] = render
                }
                last = (variant, render)
                take(render, for: attempt)
            }
        }
        if !unsent.isEmpty { settle(unsent, of: publication, job: job) }
        guard !deliveries.isEmpty, let compartment = bulkheads[provider.name] else { return }
        let delivery = Delivery(
            attempts: sent, publication: publication, job: job, recorder: metrics.sendRecorder(provider: provider.name), compartment: compartment)
        if compartment.hostLimit > 0 {
            await sendByHost(deliveries, through: provider, delivery)
        } else {
            await sendInBatches(deliveries, through: provider, delivery)
        }
    }

    /// The deliveries of one publication through one provider, on their way: what each answer is
    /// recorded and settled with.
    private struct Delivery: Sendable {
        /// The attempt of each delivery, by index.
        var attempts: [DeliveryAttempt]
        var publication: Publication
        var job: JobTracker?
        var recorder: PipelineMetrics.SendRecorder
        var compartment: ProviderBulkheads.Compartment
    }

    /// What every answer goes through, whichever way it was sent: its latency and outcome are
    /// counted, and it is settled unless it is only the cancellation of its sender at shutdown
    /// (then the delivery stays pending, or its retry leased, and the next start sends it again).
    private func answered(_ outcome: DeliveryOutcome, slot: Int, startedAt: Int64, cancelled: Bool, _ delivery: Delivery) {
        delivery.recorder.record(outcome.outcome, milliseconds: clock.nowMillis() - startedAt)
        guard !(cancelled && outcome.outcome == .transient && outcome.status == nil) else { return }
        settle(delivery.attempts[slot], .outcome(outcome), of: delivery.publication, job: delivery.job)
    }

    /// The batch path (push services with a connection pool): the budget is taken per chunk and
    /// given back per answer; the provider's breaker decides for each chunk.
    private func sendInBatches<Provider: PushProvider>(
        _ deliveries: [(message: Provider.Message, target: DeliveryTarget)], through provider: Provider, _ delivery: Delivery
    ) async {
        let compartment = delivery.compartment
        let clock = self.clock
        let bulkheads = self.bulkheads
        var start = 0
        while start < deliveries.count {
            var end = min(deliveries.count, start + compartment.budget.capacity)
            do {
                try await compartment.budget.acquire(end - start)
            } catch {
                return  // shutting down: what was not sent stays pending
            }
            switch bulkheads.admit(compartment, now: clock.nowMillis()) {
            case .deferred(let until):
                compartment.budget.release(end - start)
                settle(delivery.attempts[start..<end].map { ($0, .deferred(until: until)) }, of: delivery.publication, job: delivery.job)
                start = end
                continue
            case .probe:
                // One delivery tests whether the service is back; the rest of the chunk waits for its answer.
                compartment.budget.release(end - start - 1)
                end = start + 1
                let started = clock.nowMillis()
                let outcome = await provider.send(deliveries[start].message, to: deliveries[start].target)
                compartment.budget.release(1)
                bulkheads.record(outcome, probe: true, in: compartment, now: clock.nowMillis())
                if Task.isCancelled && outcome.outcome == .transient && outcome.status == nil {
                    bulkheads.abandonProbe(in: compartment, now: clock.nowMillis())
                }
                answered(outcome, slot: start, startedAt: started, cancelled: Task.isCancelled, delivery)
                start = end
                continue
            case .send:
                break
            }
            let chunk = start == 0 && end == deliveries.count ? deliveries : Array(deliveries[start..<end])
            let offset = start
            let started = clock.nowMillis()
            // Outcomes are reported from the pool's threads, where `Task.isCancelled` says nothing
            // about this task: its cancellation is recorded for them.
            let cancelled = OneWayFlag()
            await withTaskCancellationHandler {
                await provider.send(chunk) { slot, outcome in
                    compartment.budget.release(1)
                    bulkheads.record(outcome, probe: false, in: compartment, now: clock.nowMillis())
                    answered(outcome, slot: offset + slot, startedAt: started, cancelled: cancelled.isSet, delivery)
                }
            } onCancel: {
                cancelled.set()
            }
            start = end
        }
    }

    /// The per-delivery path (kinds whose subscribers name their host): each delivery within its
    /// host's limit and breaker, then the provider's budget.
    private func sendByHost<Provider: PushProvider>(
        _ deliveries: [(message: Provider.Message, target: DeliveryTarget)], through provider: Provider, _ delivery: Delivery
    ) async {
        let clock = self.clock
        let bulkheads = self.bulkheads
        await withDiscardingTaskGroup { group in
            for (slot, message) in deliveries.enumerated() {
                group.addTask {
                    let host = provider.destinationHost(of: message.target.token) ?? ""
                    var started: Int64 = 0
                    let result: ProviderBulkheads.HostAttempt
                    do {
                        result = try await bulkheads.withHost(host, in: delivery.compartment, clock: clock) {
                            started = clock.nowMillis()
                            return await provider.send(message.message, to: message.target)
                        }
                    } catch {
                        return  // shutting down: the delivery stays pending
                    }
                    switch result {
                    case .sent(let outcome):
                        answered(outcome, slot: slot, startedAt: started, cancelled: Task.isCancelled, delivery)
                    case .deferred(let until):
                        settle(delivery.attempts[slot], .deferred(until: until), of: delivery.publication, job: delivery.job)
                    }
                }
            }
        }
    }

    /// The providers whose deliveries of `content` increment the stored badge: those that count
    /// badges, for an event published with `incrementBadge` (none for a prepared payload).
    func badgeCountingProviders(for content: DeliveryContent) -> Set<String> {
        guard case .event(let event) = content, event.incrementBadge else { return [] }
        let counting = Set(providers.byName.filter { $0.value.countsBadges }.keys)
        return event.onlyProviders.map { counting.intersection($0) } ?? counting
    }

    /// The badge to send to each member (§7), in order, incrementing stored badges in one batch;
    /// `nil` when the store cannot be written (the page stays pending and is sent after a restart).
    ///
    /// Members of providers that count no badges get `.some(nil)`. A member whose entry is
    /// `nil` was deleted meanwhile and is not delivered to.
    private func badges(for members: [AudienceMember], notification: PublishedEvent) async -> [Int??]? {
        var result: [Int??] = []
        result.reserveCapacity(members.count)
        var toIncrement: [BadgeExpectation] = []
        var incrementAt: [Int] = []
        // Neighbours in a page mostly share a provider: comparing with the last one is cheaper than hashing.
        var last: (proto: String, counts: Bool)?
        for index in members.indices {
            let proto = members[index].subscriber.proto
            let counts: Bool
            if let last, last.proto == proto {
                counts = last.counts
            } else {
                counts = providers[proto]?.countsBadges ?? false
                last = (proto, counts)
            }
            if counts && notification.incrementBadge && members[index].badgeIncremented {
                // Incremented by the store as it read the page; the badge read is the one before.
                result.append(.some(BadgeLogic.badgeToSend(
                    payloadBadge: notification.badge, storedBadge: members[index].subscriber.fields.badge, increment: true)))
            } else if counts && notification.incrementBadge {
                // The page was just read: the store writes from these values unless they changed since.
                incrementAt.append(result.count)
                toIncrement.append(BadgeExpectation(id: members[index].subscriber.id, storedBadge: members[index].subscriber.fields.badge))
                result.append(nil)
            } else if counts {
                result.append(.some(BadgeLogic.badgeToSend(
                    payloadBadge: notification.badge, storedBadge: members[index].subscriber.fields.badge, increment: false)))
            } else {
                result.append(.some(nil))
            }
        }
        if !toIncrement.isEmpty {
            var failures = 0
            while true {
                do {
                    let previous = try await store.incrementBadges(expecting: toIncrement)
                    for (index, increment) in zip(incrementAt, previous) {
                        guard case .incremented(let stored) = increment else { continue }
                        result[index] = .some(BadgeLogic.badgeToSend(payloadBadge: notification.badge, storedBadge: stored, increment: true))
                    }
                    break
                } catch {
                    failures += 1
                    logger.error("counting badges failed; will try again", metadata: ["error": "\(error)", "attempt": "\(failures)"])
                    do { try await Task.sleep(for: .seconds(min(failures, 5))) } catch { return nil }
                }
            }
        }
        return result
    }
}
