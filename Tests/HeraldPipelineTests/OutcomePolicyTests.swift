import HeraldCore
import HeraldStore
import Testing

@testable import HeraldPipeline

/// Each rule of ``OutcomePolicy`` (pushd-api.md §11.1) on its own: an attempt's result in, the
/// effects out, with no store, provider or clock.
@Suite struct OutcomePolicyTests {
    static let now: Int64 = 1_700_000_000_000
    static let subscriber = Subscriber(id: SubscriberID(rawValue: "s1"), proto: "apns", token: "aa", created: 0, updated: 0)

    func policy(maxAttempts: Int = 5, maxRetryAge: Duration? = .seconds(86_400), countingAgainst: Set<String> = []) -> OutcomePolicy {
        var delivery = DeliveryPolicy()
        delivery.maxAttempts = maxAttempts
        delivery.maxRetryAge = maxRetryAge
        delivery.retryDelay = .seconds(1)
        delivery.maxRetryDelay = .seconds(300)
        return OutcomePolicy(delivery: delivery, exhaustedRetriesCountAgainstSubscriber: countingAgainst)
    }

    func publication(ttl: Int? = nil, publishedAt: Int64 = now / 1000, receiptID: String? = "p1") -> Publication {
        Publication(
            content: .event(PublishedEvent(event: "news", message: .init(["default": "hi"]), ttl: ttl)), statisticsEvent: EventName.broadcast,
            publishedAt: publishedAt, receiptID: receiptID)
    }

    func firstAttempt(proto: String = "apns") -> DeliveryAttempt {
        var attempt = DeliveryAttempt(subscriber: Self.subscriber, silent: false, badge: nil, attemptsBefore: 0, retryID: nil)
        attempt.proto = proto
        return attempt
    }

    func queuedAttempt(attemptsBefore: Int, maxAttempts: Int? = nil) -> DeliveryAttempt {
        DeliveryAttempt(
            subscriber: Self.subscriber, silent: false, badge: nil, attemptsBefore: attemptsBefore, maxAttempts: maxAttempts, retryID: 7)
    }

    func effects(
        _ policy: OutcomePolicy, _ result: AttemptResult, _ attempt: DeliveryAttempt, _ publication: Publication, now: Int64 = now
    ) -> [OutcomeEffect] {
        var random = SystemRandomNumberGenerator()
        return policy.effects(of: result, for: attempt, of: publication, nowMillis: now, using: &random)
    }

    /// The retry among `effects`, with its due time checked to lie in `due` (jitter makes it vary)
    /// and then replaced by the range's lower bound, so the rest can be compared exactly.
    func retryDue(in due: ClosedRange<Int64>, _ effects: [OutcomeEffect]) -> [OutcomeEffect] {
        effects.map { effect in
            guard case .retry(let attempts, let dueAt, let reason) = effect else { return effect }
            #expect(due.contains(dueAt), "due at \(dueAt), expected within \(due)")
            return .retry(attempts: attempts, dueAt: due.lowerBound, reason: reason)
        }
    }

    func receipt(_ body: (inout ReceiptProgress) -> Void) -> OutcomeEffect {
        var progress = ReceiptProgress()
        body(&progress)
        return .countInReceipt(progress)
    }

    @Test func aDeliveryIsRecordedAndCountsTheMemberReached() {
        let result = effects(policy(), .outcome(.delivered), firstAttempt(), publication())
        #expect(result == [.record(.delivered, deadLetter: false), receipt { $0.reached = 1; $0.delivered = 1 }])
    }

    @Test func aTransientFailureIsRetriedAfterTheBackoffAndCountsTheMemberReached() {
        let outcome = DeliveryOutcome(.transient, reason: "ServiceUnavailable", status: 503)
        let result = effects(policy(), .outcome(outcome), firstAttempt(), publication())
        // 1 s of backoff after the first attempt, with ±20 % of jitter.
        #expect(retryDue(in: Self.now + 800...Self.now + 1200, result) == [
            .retry(attempts: 1, dueAt: Self.now + 800, reason: "ServiceUnavailable"), receipt { $0.reached = 1 },
        ])
    }

    @Test func aRetryIsNeverSoonerThanTheServicesRetryAfter() {
        let outcome = DeliveryOutcome(.transient, reason: "TooManyRequests", status: 429, retryAfter: .seconds(30))
        let result = effects(policy(), .outcome(outcome), queuedAttempt(attemptsBefore: 1), publication())
        #expect(result == [.retry(attempts: 2, dueAt: Self.now + 30_000, reason: "TooManyRequests")], "a rescheduled retry adds nothing to the receipt")
    }

    @Test func exhaustedRetriesFailForGoodAsADeadLetterAndFinishTheQueuedDelivery() {
        let outcome = DeliveryOutcome(.transient, reason: "InternalServerError", status: 500)
        let result = effects(policy(maxAttempts: 3), .outcome(outcome), queuedAttempt(attemptsBefore: 2), publication())
        #expect(result == [
            .record(.failed(reason: "InternalServerError", status: 500), deadLetter: true), .finishQueued,
            receipt { $0.failed = 1; $0.deadLettered = 1; $0.failures = ["InternalServerError": 1] },
        ])
    }

    @Test func theDeliverysOwnAttemptLimitWinsWhenLower() {
        let outcome = DeliveryOutcome(.transient, reason: "Timeout")
        let result = effects(policy(maxAttempts: 5), .outcome(outcome), queuedAttempt(attemptsBefore: 0, maxAttempts: 1), publication())
        #expect(result.first == .record(.failed(reason: "Timeout", status: nil), deadLetter: true))
        #expect(result.contains(.finishQueued))
    }

    @Test func exhaustedRetriesCountAgainstTheSubscriberWhereTheProviderSaysSo() {
        let outcome = DeliveryOutcome(.transient, reason: "connection refused")
        let policy = policy(maxAttempts: 1, countingAgainst: ["hook"])
        let hook = effects(policy, .outcome(outcome), firstAttempt(proto: "hook"), publication())
        #expect(hook.first == .record(.subscriberFailure(reason: "connection refused", status: nil), deadLetter: true))
        let apns = effects(policy, .outcome(outcome), firstAttempt(proto: "apns"), publication())
        #expect(apns.first == .record(.failed(reason: "connection refused", status: nil), deadLetter: true))
    }

    @Test func aRetryDueAfterTheContentExpiresFailsAsExpired() {
        let outcome = DeliveryOutcome(.transient, reason: "ServiceUnavailable", status: 503)
        // Half a second into the last second of a ttl of 10 s: the retry, at least 0.8 s later, would come after it.
        let publication = publication(ttl: 10, publishedAt: Self.now / 1000 - 10)
        let result = effects(policy(), .outcome(outcome), firstAttempt(), publication, now: Self.now + 500)
        #expect(result.first == .record(.failed(reason: "Expired", status: 503), deadLetter: true))
        #expect(!result.contains { if case .retry = $0 { true } else { false } })
    }

    @Test func aRetryDueAfterMaxRetryAgeFailsAsMaxRetryAge() {
        let outcome = DeliveryOutcome(.transient, reason: "ServiceUnavailable", status: 503)
        let old = publication(publishedAt: (Self.now - 3_600_000) / 1000)
        let result = effects(policy(maxRetryAge: .seconds(3_600)), .outcome(outcome), queuedAttempt(attemptsBefore: 1), old)
        #expect(result == [
            .record(.failed(reason: "MaxRetryAge", status: 503), deadLetter: true), .finishQueued,
            receipt { $0.failed = 1; $0.deadLettered = 1; $0.failures = ["MaxRetryAge": 1] },
        ])
        let unbounded = effects(policy(maxRetryAge: nil), .outcome(outcome), queuedAttempt(attemptsBefore: 1), old)
        #expect(unbounded.first.map { if case .retry = $0 { true } else { false } } == true, "no max_retry_age: retried")
    }

    @Test func aDeferralIsNoAttempt() {
        // Up to half the first retry delay of jitter, so that what waited does not arrive at once.
        let until = Self.now + 2_000
        let result = effects(policy(), .deferred(until: until), queuedAttempt(attemptsBefore: 2), publication())
        #expect(retryDue(in: until...until + 500, result) == [.retry(attempts: 2, dueAt: until, reason: "ProviderDown")], "the count stays at 2")
        // Deferred at the last attempt still waits for the breaker: it was not tried.
        let last = effects(policy(maxAttempts: 3), .deferred(until: until), queuedAttempt(attemptsBefore: 2), publication())
        #expect(retryDue(in: until...until + 500, last) == [.retry(attempts: 2, dueAt: until, reason: "ProviderDown")])
        // A breaker that opened in the past defers from now.
        let past = effects(policy(), .deferred(until: Self.now - 10), firstAttempt(), publication())
        #expect(retryDue(in: Self.now...Self.now + 500, past) == [
            .retry(attempts: 0, dueAt: Self.now, reason: "ProviderDown"), receipt { $0.reached = 1 },
        ])
    }

    @Test func aDeferralPastTheContentsExpiryFailsAsExpired() {
        let publication = publication(ttl: 1, publishedAt: Self.now / 1000)
        let result = effects(policy(), .deferred(until: Self.now + 60_000), firstAttempt(), publication)
        #expect(result.first == .record(.failed(reason: "Expired", status: nil), deadLetter: true))
    }

    @Test func aDeadTokenIsRecordedWithoutADeadLetter() {
        let outcome = DeliveryOutcome(.deadToken, reason: "Unregistered", status: 410, invalidSince: 1_600_000_000_000)
        let result = effects(policy(), .outcome(outcome), firstAttempt(), publication())
        #expect(result == [
            .record(.deadToken(reason: "Unregistered", status: 410, invalidSince: 1_600_000_000_000), deadLetter: false),
            receipt { $0.reached = 1; $0.failed = 1; $0.failures = ["Unregistered": 1] },
        ])
    }

    @Test func subscriberAndMessageFailuresAreKeptAsDeadLetters() {
        let subscriber = effects(policy(), .outcome(DeliveryOutcome(.subscriberFailure, reason: "Forbidden", status: 403)), firstAttempt(), publication())
        #expect(subscriber.first == .record(.subscriberFailure(reason: "Forbidden", status: 403), deadLetter: true))
        let message = effects(policy(), .outcome(DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge", status: 413)), firstAttempt(), publication())
        #expect(message.first == .record(.failed(reason: "PayloadTooLarge", status: 413), deadLetter: true))
    }

    @Test func aConfigurationFailureIsReportedAndFailsTheDelivery() {
        let outcome = DeliveryOutcome(.configurationFailure, reason: "InvalidProviderToken", status: 403)
        let result = effects(policy(), .outcome(outcome), queuedAttempt(attemptsBefore: 1), publication(receiptID: nil))
        #expect(result == [
            .reportConfigurationFailure(reason: "InvalidProviderToken", status: 403),
            .record(.failed(reason: "InvalidProviderToken", status: 403), deadLetter: true), .finishQueued,
        ], "no receipt: nothing counted in one")
    }

    @Test func aReplacementTokenIsStoredForASubscriberOnly() {
        let outcome = DeliveryOutcome(.delivered, replacementToken: "new-token")
        let result = effects(policy(), .outcome(outcome), firstAttempt(), publication(receiptID: nil))
        #expect(result == [.record(.delivered, deadLetter: false), .replaceToken("new-token")])
        let raw = DeliveryAttempt(proto: "gcm", token: "old", attemptsBefore: 0, maxAttempts: nil, retryID: 3)
        #expect(effects(policy(), .outcome(outcome), raw, publication(receiptID: nil)) == [.record(.delivered, deadLetter: false), .finishQueued])
    }

    @Test func aSkippedDeliveryOnlyCountsInTheReceipt() {
        let first = effects(policy(), .skipped("SilentToast"), firstAttempt(), publication())
        #expect(first == [receipt { $0.reached = 1; $0.skipped = 1 }])
        let queued = effects(policy(), .skipped("SilentToast"), queuedAttempt(attemptsBefore: 1), publication())
        #expect(queued == [.finishQueued, receipt { $0.skipped = 1 }])
    }

    @Test func aRetryOfAReceiptlessPublicationCountsNothing() {
        let outcome = DeliveryOutcome(.transient, reason: "ServiceUnavailable", status: 503)
        let result = effects(policy(), .outcome(outcome), firstAttempt(), publication(receiptID: nil))
        #expect(retryDue(in: Self.now + 800...Self.now + 1200, result) == [.retry(attempts: 1, dueAt: Self.now + 800, reason: "ServiceUnavailable")])
    }
}
