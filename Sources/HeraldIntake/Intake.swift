import HeraldCore
import HeraldPipeline
import HeraldStore
import Logging
import Synchronization

/// What every front door does with what it receives: publish events, register subscribers and
/// send prepared payloads to raw tokens, each committed to the store before it is acknowledged.
///
/// The HTTP routes, the UDP port and every compat front-end call these operations and map
/// ``IntakeError`` to their own wire form; none has a delivery path of its own.
public struct Intake: Sendable {
    /// The store everything is committed to: only through the intake's operations.
    let store: any HeraldStore
    /// The configured providers, for token validation.
    public let providers: ProviderSet
    let gate: BacklogGate
    let observers: DeliveryObservers?
    let publishing: PublishPolicy
    let metrics: IntakeMetrics
    let logger: Logger
    /// The clock publishes and sends are stamped with: the store's.
    public var clock: WallClock { store.clock }

    /// Longest stored token in bytes: far above any push service's (a Web Push subscription is under 1 kB,
    /// a webhook URL rarely over 2 kB), low enough that registrations cannot bloat the store.
    public static let maxTokenLength = 4096
    /// Most tokens one raw send may carry: each is a row written in the send's transaction.
    public static let maxTokensPerSend = 10_000

    /// Creates the intake; `maxBacklog` is the accepted-but-undone work above which new work is
    /// refused (0: no bound).
    ///
    /// Workers and Server-Sent Events listeners learn of accepted work through the store's
    /// wake-up stream, on every node, not from the intake.
    /// `observers` hands this process's first answers to ``send(_:awaitingFirstAnswersFor:)`` (the
    /// delivery engine's); without it that call waits for nothing.
    public init(
        store: any HeraldStore, providers: ProviderSet, maxBacklog: Int = 0, observers: DeliveryObservers? = nil,
        publishing: PublishPolicy = PublishPolicy(), metrics: IntakeMetrics = IntakeMetrics(), logger: Logger
    ) {
        self.observers = observers
        self.publishing = publishing
        self.store = store
        self.providers = providers
        self.gate = BacklogGate(store: store, limit: maxBacklog)
        self.metrics = metrics
        self.logger = logger
    }

    /// Whether new work would be accepted now: throws what a publish or send would throw when
    /// the backlog is over its bound (or it cannot be counted), for front-ends that must say so
    /// before checking the rest of a request (apns-ms's check 4).
    public func admit() async throws(IntakeError) {
        try await gate.admit()
    }

    // MARK: - Publishing

    /// Publishes `payload` (pushd's keys, §5) to `event`: compiled, committed as a job (which wakes
    /// the fan-out) with its receipt, and announced to Server-Sent Events listeners by the store (§6.1).
    ///
    /// The payload may carry a delivery time, `at` (Unix seconds or RFC 3339) or `delay` (seconds):
    /// the publish is then stored (its receipt `scheduled`) and released when due. With an
    /// `idempotencyKey`, a repeat of a publish made within ``PublishPolicy/idempotencyWindow`` is
    /// answered with the first one's receipt and publishes nothing. With an API token's `scopes`,
    /// an event its patterns do not name is refused (``IntakeError/Code/outOfScope``) and only
    /// subscribers of its providers receive the publish.
    ///
    /// - Returns: the publish's receipt: its id, and its job's id (`nil` when nobody is subscribed,
    ///   when it is scheduled, or for a repeat).
    /// - Throws: ``IntakeError`` (invalid payload or schedule, unknown unicast subscriber, reused
    ///   idempotency key, overloaded, store unavailable); nothing is published when it throws.
    @discardableResult
    public func publish(
        _ payload: BodyValue, to event: EventName, origin: DeliveryOrigin = .pushd, idempotencyKey: String? = nil, scopes: TokenScopes? = nil
    ) async throws(IntakeError) -> PublishReceipt {
        do {
            let job = try await enqueue(payload, to: event, origin: origin, idempotencyKey: idempotencyKey, scopes: scopes)
            metrics.publishAccepted()
            return job
        } catch {
            metrics.publishRejected(error)
            throw error
        }
    }

    private func enqueue(
        _ payload: BodyValue, to event: EventName, origin: DeliveryOrigin, idempotencyKey: String?, scopes: TokenScopes?
    ) async throws(IntakeError) -> PublishReceipt {
        if let scopes, !scopes.allows(event: event.rawValue) { throw .outOfScope("the event \(event.rawValue)") }
        let now = clock.nowSeconds()
        let (schedule, rest) = try PublishSchedule.extract(from: payload, now: now, maxAhead: publishing.maxScheduleAhead)
        var notification: PublishedEvent
        do {
            notification = try PayloadCompiler.compile(rest, event: event.rawValue)
        } catch {
            throw .invalidRequest(error.reason)
        }
        let publishID = DeliveryContent.newPublishID()
        notification.publishID = publishID
        notification.onlyProviders = scopes?.providers
        // Apple orders a Live Activity's updates by `timestamp`: the publish's time, fixed now so
        // that a retry or a scheduled release does not make an old state look new.
        if notification.liveActivity != nil, notification.liveActivity?.timestamp == nil { notification.liveActivity?.timestamp = now }
        if let channel = notification.apnsChannel {
            return try await publish(notification, toChannel: channel, origin: origin, scheduled: schedule != nil, scopes: scopes, now: now)
        }
        try await gate.admit()
        let audience: PublishAudience = switch event.audience {
        case .subscribers: .subscribers(event)
        case .broadcast: .broadcast
        case .unicast(let id): .unicast(id)
        }
        let idempotency = try idempotencyKey.map { key throws(IntakeError) in
            try IdempotencyClaim(key: key, event: event, payload: payload, origin: origin, now: now, window: publishing.idempotencyWindow)
        }
        let request = PublishRequest(
            audience: audience, content: .event(notification), origin: origin, event: event.rawValue, dueAt: schedule?.dueAt,
            idempotency: idempotency)
        let result = try await committing("cannot store a publish") { try await store.enqueue(request, now: now) }
        switch result {
        case .unknownSubscriber:
            if case .unicast(let id) = event.audience { throw .unknownSubscriber(id) }
            throw .unknownSubscriber(SubscriberID(rawValue: ""))
        case .queued(let jobID):
            return PublishReceipt(id: publishID, jobID: jobID)
        case .noAudience:
            return PublishReceipt(id: publishID, jobID: nil)
        case .scheduled:
            return PublishReceipt(id: publishID, jobID: nil, dueAt: schedule?.dueAt)
        case .repeated(let firstID):
            return PublishReceipt(id: firstID, jobID: nil, repeated: true)
        case .keyConflict:
            throw .idempotencyKeyReused
        }
    }

    /// A publish to an APNs broadcast channel: one delivery to `channel:<id>` of the provider that
    /// has channels (or the one `apnsProvider` names), queued as raw sends are.
    private func publish(
        _ notification: PublishedEvent, toChannel channel: String, origin: DeliveryOrigin, scheduled: Bool, scopes: TokenScopes?, now: Int64
    ) async throws(IntakeError) -> PublishReceipt {
        guard notification.liveActivity != nil else {
            throw .invalidRequest("A channel publish is a Live Activity update: it needs liveActivity")
        }
        guard !scheduled else { throw .invalidRequest("A channel publish cannot be scheduled") }
        let candidates = providers.byName.filter { $0.value.broadcastChannels != nil }.map(\.key).sorted()
        let proto: String
        if let named = notification.apnsProvider {
            guard candidates.contains(named) else { throw .invalidRequest("The provider \(named) has no broadcast channels") }
            proto = named
        } else {
            guard candidates.count == 1, let only = candidates.first else {
                throw .invalidRequest(candidates.isEmpty ? "No provider has broadcast channels" : "Several providers have broadcast channels: name one with apnsProvider")
            }
            proto = only
        }
        if let scopes, !scopes.allows(provider: proto) { throw .outOfScope("the provider \(proto)") }
        let token = "channel:" + channel
        guard providers[proto]?.normalizeToken(TokenInput(token: .string(token))) != nil else {
            throw .invalidRequest("Invalid value for `apnsChannel'")
        }
        try await gate.admit()
        let delivery = QueuedDelivery(
            recipient: .token(proto: proto, token: token),
            publication: Publication(content: .event(notification), origin: origin, statisticsEvent: nil, publishedAt: now),
            silent: false, badge: nil, attempts: 0, dueAt: clock.nowMillis(), lastReason: nil)
        try await committing("cannot store a channel publish") { try await store.scheduleRetries([delivery]) }
        return PublishReceipt(id: notification.publishID ?? "", jobID: nil)
    }

    // MARK: - Receipts

    /// The receipt of a publish.
    /// - Throws: ``IntakeError/Code/unknownPublish`` when there is none.
    public func receipt(of id: String) async throws(IntakeError) -> PublishStatus {
        let status = try await committing { try await store.receipt(of: id) }
        guard let status else { throw .unknownPublish(id) }
        return status
    }

    /// Cancels a scheduled publish.
    /// - Throws: ``IntakeError/Code/unknownPublish`` or ``IntakeError/Code/notScheduled``.
    public func cancelPublish(_ id: String) async throws(IntakeError) {
        let result = try await committing { try await store.cancelPublish(id, now: clock.nowSeconds()) }
        switch result {
        case .cancelled: return
        case .unknown: throw .unknownPublish(id)
        case .notScheduled(let state): throw .notScheduled(state: state.rawValue)
        }
    }

    /// Queues the test notification of `POST /subscriber/:id/test` for one subscriber.
    /// - Throws: ``IntakeError/Code/unknownSubscriber`` when there is no such subscriber.
    public func publishTest(to id: SubscriberID) async throws(IntakeError) {
        let payload = BodyValue.object([("msg", .string("Test")), ("data.test", .string("ok"))])
        var notification: PublishedEvent
        do {
            notification = try PayloadCompiler.compile(payload, event: EventName.test.rawValue)
        } catch {
            throw .invalidRequest(error.reason)
        }
        let publishID = DeliveryContent.newPublishID()
        notification.publishID = publishID
        try await gate.admit()
        let result = try await committing { try await store.enqueue(.test(id), notification: notification, now: clock.nowSeconds()) }
        guard case .queued = result else { throw .unknownSubscriber(id) }
    }

    /// Deletes an event (§4.16).
    /// - Returns: `false` when there was nothing to delete.
    public func deleteEvent(_ event: EventName) async throws(IntakeError) -> Bool {
        try await committing { try await store.deleteEvent(event) }
    }

    // MARK: - Registering

    /// Validates a registration's token with its provider (§4.2).
    ///
    /// - Throws: ``IntakeError/Code/unknownProvider``, ``IntakeError/Code/invalidToken`` or
    ///   ``IntakeError/Code/destinationNotAllowed``.
    public func validateToken(proto: String, _ input: TokenInput) throws(IntakeError) -> NormalizedToken {
        guard !proto.isEmpty, let provider = providers[proto] else { throw .unknownProvider(proto) }
        guard let token = provider.normalizeToken(input),
            token.token.utf8.count <= Self.maxTokenLength, token.identity.utf8.count <= Self.maxTokenLength
        else {
            throw .invalidToken(proto: proto)
        }
        try Self.checkDestination(of: token.token, provider: provider)
        return token
    }

    /// Refuses a token whose host is a literal address the provider's ``DestinationPolicy`` forbids.
    ///
    /// Host names are not resolved here: a name may resolve differently when a delivery connects, so the
    /// provider checks every resolved address then.
    private static func checkDestination(of token: String, provider: any PushProvider) throws(IntakeError) {
        guard let policy = provider.destinationPolicy, let authority = provider.destinationHost(of: token) else { return }
        if let host = policy.refusedLiteralHost(inAuthority: authority) { throw .destinationNotAllowed(host: host) }
    }

    /// Registers (or refreshes) a subscriber whose token ``validateToken(proto:_:)`` accepted (§4.2).
    ///
    /// - Returns: the stored subscriber and whether it was created.
    /// - Throws: ``IntakeError/Code/unavailable``; nothing is registered when it throws.
    public func register(
        proto: String, token: NormalizedToken, fields: SubscriberFields
    ) async throws(IntakeError) -> (subscriber: Subscriber, created: Bool) {
        let registration = SubscriberRegistration(proto: proto, token: token.token, identity: token.identity, fields: fields)
        return try await committing("cannot store a registration") { try await store.register(registration, now: clock.nowSeconds()) }
    }

    // MARK: - Raw sends

    /// Accepts a prepared payload for raw tokens: each token is validated by its provider, and
    /// all become deliveries in the store's queue in one transaction, due now. Once this returns,
    /// they survive a crash; the delivery queue sends them, retries what fails and keeps what
    /// fails for good as dead letters.
    ///
    /// - Returns: how many deliveries were queued (one per distinct token; none for a repeat of
    ///   a ``RawSend/once`` key).
    /// - Throws: ``IntakeError``: unknown provider, an invalid token (then none is queued), no or
    ///   too many tokens, an invalid key, overloaded, or the store unavailable.
    @discardableResult
    public func send(_ send: RawSend) async throws(IntakeError) -> Int {
        do {
            let count = try await enqueue(send)
            metrics.rawSends(count, origin: send.origin)
            return count
        } catch {
            metrics.rawSendRejected(error, origin: send.origin)
            throw error
        }
    }

    /// Accepts a raw send as ``send(_:)`` does, then waits up to `timeout` for the service's answers
    /// to the first attempt, as apns-ms's clients expect (compat.md §4.3).
    ///
    /// - Returns: the answers that came within `timeout`, by token (normalized); a token missing
    ///   got none in time (its outcome is settled and fed back later) or was delivered by another node.
    public func send(_ send: RawSend, awaitingFirstAnswersFor timeout: Duration) async throws(IntakeError) -> [String: DeliveryOutcome] {
        guard let observers else {
            try await self.send(send)
            return [:]
        }
        var awaited = send
        let receipt = SubscriberID.random().rawValue + SubscriberID.random().rawValue
        awaited.payload.receipt = receipt
        // Listening before the send is stored: no answer can come before the waiter.
        let answers = observers.open(receipt)
        defer { observers.close(receipt) }
        let expected = try await self.send(awaited)
        let collected = AnswerCollector()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await answer in answers where collected.add(answer) >= expected { return }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
        return collected.answers
    }

    private func enqueue(_ send: RawSend) async throws(IntakeError) -> Int {
        guard let provider = providers[send.proto] else { throw .unknownProvider(send.proto) }
        guard !send.tokens.isEmpty else { throw .invalidRequest("No tokens") }
        guard send.tokens.count <= Self.maxTokensPerSend else { throw .invalidRequest("More than \(Self.maxTokensPerSend) tokens") }
        if let maxAttempts = send.maxAttempts, maxAttempts < 1 { throw .invalidRequest("maxAttempts must be at least 1") }
        if let once = send.once, !(1...IdempotencyClaim.maxKeyLength).contains(once.key.utf8.count) || once.window <= .zero {
            throw .invalidRequest("A send's key is 1 to \(IdempotencyClaim.maxKeyLength) bytes, its window positive")
        }
        var seen: Set<String> = []
        var tokens: [String] = []
        for raw in send.tokens {
            guard let token = provider.normalizeToken(TokenInput(token: .string(raw))), token.token.utf8.count <= Self.maxTokenLength else {
                guard send.invalidTokens == .leaveOut else { throw .invalidToken(proto: send.proto) }
                logger.info("token left out of a raw send", metadata: ["provider": "\(send.proto)", "origin": "\(send.origin)"])
                continue
            }
            do {
                try Self.checkDestination(of: token.token, provider: provider)
            } catch {
                guard send.invalidTokens == .leaveOut else { throw error }
                logger.info("forbidden destination left out of a raw send", metadata: ["provider": "\(send.proto)", "origin": "\(send.origin)"])
                continue
            }
            if seen.insert(token.token).inserted { tokens.append(token.token) }
        }
        guard !tokens.isEmpty else { return 0 }  // every token left out: nothing to store
        try await gate.admit()
        let nowMillis = clock.nowMillis()
        let now = clock.nowSeconds()
        var payload = send.payload
        payload.publishID = DeliveryContent.newPublishID()
        payload.acceptedAt = now
        // A raw send counts in no statistics row and has no receipt.
        let publication = Publication(content: .prepared(payload), origin: send.origin, statisticsEvent: nil, publishedAt: now)
        let deliveries = tokens.map { token in
            QueuedDelivery(
                recipient: .token(proto: send.proto, token: token), publication: publication, silent: false, badge: nil, attempts: 0,
                maxAttempts: send.maxAttempts, dueAt: nowMillis, lastReason: nil)
        }
        guard let once = send.once else {
            try await committing("cannot store a raw send", metadata: ["origin": "\(send.origin)"]) { try await store.scheduleRetries(deliveries) }
            return deliveries.count
        }
        let key = DeliveryKey(once.key, expiresAt: now + once.window.components.seconds)
        let stored = try await committing("cannot store a raw send", metadata: ["origin": "\(send.origin)"]) {
            try await store.scheduleRetries(deliveries, once: key, now: now)
        }
        return stored ? deliveries.count : 0
    }
}

/// The answers gathered while a raw send is awaited, shared by the listening and the timing task.
private final class AnswerCollector: Sendable {
    private let state = Mutex<[String: DeliveryOutcome]>([:])

    /// Keeps an answer; returns how many tokens have one.
    func add(_ answer: DeliveryObservers.Answer) -> Int {
        state.withLock { answers in
            answers[answer.token] = answer.outcome
            return answers.count
        }
    }

    var answers: [String: DeliveryOutcome] { state.withLock { $0 } }
}
