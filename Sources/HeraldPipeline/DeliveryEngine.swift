import HeraldCore
import HeraldStore
import Logging
import Metrics
import Synchronization

/// Renders, sends and settles deliveries: the work shared by fan-out and retries.
///
/// Settling turns each provider outcome into its effect on the store (statistics,
/// failure counters, unregistration, feedback) or into a persisted retry.
public struct DeliveryEngine: Sendable {
    let store: any HeraldStore
    let providers: ProviderSet
    let policy: DeliveryPolicy
    let logger: Logger
    let metrics: PipelineMetrics
    let nowMillis: @Sendable () -> Int64
    /// Wakes the retry service when a retry is scheduled, so short first delays are honoured.
    public let retryWakeUp: WakeUpSignal

    /// Creates an engine.
    public init(
        store: any HeraldStore,
        providers: ProviderSet,
        policy: DeliveryPolicy,
        logger: Logger,
        retryWakeUp: WakeUpSignal = WakeUpSignal(),
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        nowMillis: @escaping @Sendable () -> Int64 = { Clock.nowMillis() }
    ) {
        self.store = store
        self.providers = providers
        self.policy = policy
        self.logger = logger
        self.metrics = PipelineMetrics(providerNames: Array(providers.byName.keys), factory: metricsFactory)
        self.nowMillis = nowMillis
        self.retryWakeUp = retryWakeUp
    }

    /// Delivers one page of a job's audience and settles every outcome.
    ///
    /// - Returns: the provider names that are no longer configured, met in this page.
    func deliverPage(_ members: [AudienceMember], of job: PublishJob) async throws -> Set<String> {
        let notification = job.notification
        var unknownProviders: Set<String> = []
        var skipped: [FeedbackEntry] = []
        var known: [AudienceMember] = []
        let now = nowMillis() / 1000
        for member in members {
            if providers[member.subscriber.proto] == nil {
                unknownProviders.insert(member.subscriber.proto)
                skipped.append(FeedbackEntry(
                    time: now, subscriberID: member.subscriber.id, proto: member.subscriber.proto,
                    token: member.subscriber.token, status: nil, reason: "UnknownProvider", action: .skipped))
            } else {
                known.append(member)
            }
        }
        if !skipped.isEmpty { try await store.appendFeedback(skipped) }

        let badges = try await badges(for: known, notification: notification)
        let attempts = zip(known, badges).compactMap { member, badge -> DeliveryAttempt? in
            guard let badge else { return nil }  // deleted meanwhile
            return DeliveryAttempt(subscriber: member.subscriber, silent: member.silent, badge: badge, attemptsBefore: 0, retryID: nil)
        }
        try await run(attempts, notification: notification, statisticsEvent: job.audience.statisticsEvent, publishedAt: job.publishedAt)
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

    /// Retries claimed deliveries and settles them.
    func deliverRetries(_ entries: [RetryEntry]) async throws {
        // Group retries of the same notification so they render once per variant.
        var groups: [PublishedEvent: [(RetryEntry, Subscriber)]] = [:]
        for entry in entries {
            guard let subscriber = try await store.subscriber(entry.subscriberID), providers[subscriber.proto] != nil else {
                try await store.completeRetry(id: entry.id)
                continue
            }
            groups[entry.notification, default: []].append((entry, subscriber))
        }
        for (notification, items) in groups {
            // Entries of one notification may come from different publishes; settle them by publish.
            var byPublish: [String: [(RetryEntry, Subscriber)]] = [:]
            for item in items {
                byPublish["\(item.0.publishedAt)|\(item.0.statisticsEvent?.rawValue ?? "")", default: []].append(item)
            }
            for group in byPublish.values {
                let first = group[0].0
                let attempts = group.map { entry, subscriber in
                    DeliveryAttempt(subscriber: subscriber, silent: entry.silent, badge: entry.badge, attemptsBefore: entry.attempts, retryID: entry.id)
                }
                try await run(attempts, notification: notification, statisticsEvent: first.statisticsEvent, publishedAt: first.publishedAt)
            }
        }
    }

    /// Renders, sends and settles attempts of one notification from one publish.
    func run(_ attempts: [DeliveryAttempt], notification: PublishedEvent, statisticsEvent: EventName?, publishedAt: Int64) async throws {
        guard !attempts.isEmpty else { return }
        var results: [AttemptResult] = Array(repeating: .skipped(""), count: attempts.count)
        let deadline = notification.deadline(publishedAt: publishedAt)
        if let deadline, nowMillis() / 1000 > deadline {
            results = Array(repeating: .outcome(DeliveryOutcome(.messageFailure, reason: "Expired")), count: attempts.count)
        } else {
            // Group by provider, keeping each attempt's index. Neighbours mostly share a provider
            // (a page usually has one): comparing with the last group is cheaper than hashing.
            var groups: [(name: String, indices: [Int])] = []
            for (index, attempt) in attempts.enumerated() {
                let proto = attempt.subscriber.proto
                if let last = groups.indices.last, groups[last].name == proto {
                    groups[last].indices.append(index)
                } else if let existing = groups.firstIndex(where: { $0.name == proto }) {
                    groups[existing].indices.append(index)
                } else {
                    groups.append((proto, [index]))
                }
            }
            for (name, indices) in groups {
                guard let provider = providers[name] else { continue }
                // One provider: its group is every attempt, in order, so the array is shared, not copied.
                let group = groups.count == 1 ? attempts : indices.map { attempts[$0] }
                let groupResults = await send(group, through: provider, notification: notification)
                for (offset, index) in indices.enumerated() { results[index] = groupResults[offset] }
            }
        }
        try await settle(attempts, results: results, notification: notification, statisticsEvent: statisticsEvent, publishedAt: publishedAt)
    }

    /// Renders once per variant and sends with at most the provider's concurrency.
    private func send<Provider: PushProvider>(
        _ attempts: [DeliveryAttempt], through provider: Provider, notification: PublishedEvent
    ) async -> [AttemptResult] {
        var results: [AttemptResult] = Array(repeating: .skipped(""), count: attempts.count)
        var rendered: [MessageVariant: RenderResult<Provider.Message>] = [:]
        // Neighbours in a page mostly share a variant: comparing with the last one is cheaper than hashing.
        var last: (variant: MessageVariant, render: RenderResult<Provider.Message>)?
        // What is sent, and for each the index of its attempt.
        var deliveries: [(message: Provider.Message, target: DeliveryTarget)] = []
        var attemptIndices: [Int] = []
        deliveries.reserveCapacity(attempts.count)
        attemptIndices.reserveCapacity(attempts.count)
        for (index, attempt) in attempts.enumerated() {
            let fields = attempt.subscriber.fields
            let variant = provider.variant(lang: fields.lang, silent: attempt.silent, badge: attempt.badge, version: fields.version)
            let render: RenderResult<Provider.Message>
            if let last, last.variant == variant {
                render = last.render
            } else if let cached = rendered[variant] {
                render = cached
            } else {
                render = provider.render(notification, for: variant)
                rendered[variant] = render
            }
            last = (variant, render)
            switch render {
            case .send(let message):
                deliveries.append((message, DeliveryTarget(subscriberID: attempt.subscriber.id, token: attempt.subscriber.token)))
                attemptIndices.append(index)
            case .skip(let reason):
                results[index] = .skipped(reason)
            case .fail(let outcome):
                results[index] = .outcome(outcome)
            }
        }
        let recorder = metrics.sendRecorder(provider: provider.name)
        let nowMillis = self.nowMillis
        let progress = SendProgress(count: deliveries.count)
        // The latency of a delivery is counted from the hand-over of its batch: with the batch
        // within the provider's concurrency, that is when it was sent.
        let started = nowMillis()
        await provider.send(deliveries) { slot, outcome in
            recorder.record(outcome.outcome, milliseconds: nowMillis() - started)
            progress.complete(slot, with: outcome)
        }
        for (slot, outcome) in progress.outcomes.enumerated() {
            if let outcome { results[attemptIndices[slot]] = .outcome(outcome) }
        }
        return results
    }

    /// The badge to send to each member (§7), in order, incrementing stored badges in one batch.
    ///
    /// Members of providers that count no badges get `.some(nil)`. A member whose entry is
    /// `nil` was deleted meanwhile and is not delivered to.
    private func badges(for members: [AudienceMember], notification: PublishedEvent) async throws -> [Int??] {
        var result: [Int??] = []
        result.reserveCapacity(members.count)
        var toIncrement: [BadgeExpectation] = []
        var incrementAt: [Int] = []
        // Neighbours in a page mostly share a provider: comparing with the last one is cheaper than hashing.
        var last: (proto: String, counts: Bool)?
        for member in members {
            let proto = member.subscriber.proto
            let counts: Bool
            if let last, last.proto == proto {
                counts = last.counts
            } else {
                counts = providers[proto]?.countsBadges ?? false
                last = (proto, counts)
            }
            if counts && notification.incrementBadge {
                // The page was just read: the store writes from these values unless they changed since.
                incrementAt.append(result.count)
                toIncrement.append(BadgeExpectation(id: member.subscriber.id, storedBadge: member.subscriber.fields.badge))
                result.append(nil)
            } else if counts {
                result.append(.some(BadgeLogic.badgeToSend(
                    payloadBadge: notification.badge, storedBadge: member.subscriber.fields.badge, increment: false)))
            } else {
                result.append(.some(nil))
            }
        }
        if !toIncrement.isEmpty {
            let previous = try await store.incrementBadges(expecting: toIncrement)
            for (index, stored) in zip(incrementAt, previous) {
                guard let stored else { continue }
                result[index] = .some(BadgeLogic.badgeToSend(payloadBadge: notification.badge, storedBadge: stored, increment: true))
            }
        }
        return result
    }
}

/// The outcomes of one batch as the provider reports them, from whichever threads it uses.
private final class SendProgress: Sendable {
    private let slots: Mutex<[DeliveryOutcome?]>

    init(count: Int) {
        self.slots = Mutex(Array(repeating: nil, count: count))
    }

    /// Records the outcome of a delivery.
    func complete(_ slot: Int, with outcome: DeliveryOutcome) {
        slots.withLock { $0[slot] = outcome }
    }

    /// Every outcome, by index; `nil` for a delivery not made.
    var outcomes: [DeliveryOutcome?] {
        slots.withLock { $0 }
    }
}
