import HeraldStoreConformance
import Testing

// The store conformance suite (target HeraldStoreConformance) run against PostgreSQL: one test per
// check, with the check's name. Swift Testing has no test inheritance, so each backend's test
// target calls every check from a thin test of its own; another backend copies this file and
// changes `backend`. A check added to the suite gets its line here, in every backend's copy.

/// The backend every test of this file runs its check against.
private let backend = StoreBackend.postgres

@Suite("PostgreSQL store conformance: whole store")
struct StoreConformanceTests {
    @Test("a new store is empty and healthy")
    func emptyStore() async throws { try await StoreConformance.emptyStore(backend) }
    @Test("after deleting everything, counts() is all zeros")
    func deletingEverythingEmptiesTheStore() async throws { try await StoreConformance.deletingEverythingEmptiesTheStore(backend) }
}

@Suite("PostgreSQL store conformance: subscribers")
struct SubscriberConformanceTests {
    @Test("register creates a subscriber with a fresh id")
    func registerCreates() async throws { try await SubscriberConformance.registerCreates(backend) }
    @Test("registerMany registers and subscribes in one call, idempotently")
    func registerManyRegistersAndSubscribes() async throws { try await SubscriberConformance.registerManyRegistersAndSubscribes(backend) }
    @Test("register is idempotent: same id, created kept, fields merged, failures reset")
    func registerIsIdempotent() async throws { try await SubscriberConformance.registerIsIdempotent(backend) }
    @Test("register matches by (proto, identity) and replaces the token")
    func registerReplacesTokenOfSameIdentity() async throws { try await SubscriberConformance.registerReplacesTokenOfSameIdentity(backend) }
    @Test("a badge given with a registration replaces the stored one, of a new or a known subscriber")
    func registerStoresAGivenBadge() async throws { try await SubscriberConformance.registerStoresAGivenBadge(backend) }
    @Test("the same identity registered many times at once is one subscriber, created once")
    func concurrentRegistrationsOfOneIdentity() async throws { try await SubscriberConformance.concurrentRegistrationsOfOneIdentity(backend) }
    @Test("many registrations at once, new and known identities, some repeated, some with badges, each answered as if alone")
    func concurrentRegistrationsAnswerEachCaller() async throws { try await SubscriberConformance.concurrentRegistrationsAnswerEachCaller(backend) }
    @Test("unknown ids are not found")
    func unknownSubscriber() async throws { try await SubscriberConformance.unknownSubscriber(backend) }
    @Test("update merges fields, sets updated and resets the failure counter")
    func updateSubscriber() async throws { try await SubscriberConformance.updateSubscriber(backend) }
    @Test("delete cascades: subscriptions, emptied events, unicast statistics, retries, broadcast statistics")
    func deleteCascades() async throws { try await SubscriberConformance.deleteCascades(backend) }
    @Test("incrementBadges: absent → 1, 3 → 4, abc → 1; returns the old values")
    func incrementBadges() async throws { try await SubscriberConformance.incrementBadges(backend) }
    @Test("incrementBadges matches stored badges byte for byte: empty, non-ASCII")
    func incrementBadgesOddText() async throws { try await SubscriberConformance.incrementBadgesOddText(backend) }
    @Test("incrementBadges(expecting:): a badge still as read is incremented from it; a changed one from the stored value")
    func incrementBadgesExpecting() async throws { try await SubscriberConformance.incrementBadgesExpecting(backend) }
    @Test("incrementBadges handles a whole page in one call")
    func incrementBadgesPage() async throws { try await SubscriberConformance.incrementBadgesPage(backend) }
}

@Suite("PostgreSQL store conformance: subscriptions")
struct SubscriptionConformanceTests {
    @Test("subscribe creates the event, then overwrites the option")
    func subscribe() async throws { try await SubscriptionConformance.subscribe(backend) }
    @Test("subscribing an unknown subscriber leaves nothing behind")
    func subscribeUnknown() async throws { try await SubscriptionConformance.subscribeUnknown(backend) }
    @Test("many subscriptions at once, new and repeated, some of unknown subscribers, each answered as if alone")
    func concurrentSubscriptionsAnswerEachCaller() async throws { try await SubscriptionConformance.concurrentSubscriptionsAnswerEachCaller(backend) }
    @Test("subscriptions are listed in byte order with their options")
    func subscriptionsSorted() async throws { try await SubscriptionConformance.subscriptionsSorted(backend) }
    @Test("unsubscribe deletes the event with its last subscription")
    func unsubscribe() async throws { try await SubscriptionConformance.unsubscribe(backend) }
    @Test("replaceSubscriptions makes the set equal, deleting emptied events")
    func replaceSubscriptions() async throws { try await SubscriptionConformance.replaceSubscriptions(backend) }
}

@Suite("PostgreSQL store conformance: events and statistics")
struct EventConformanceTests {
    @Test("eventNames lists subscribed names in byte order, special names only when subscribed")
    func eventNamesByteOrder() async throws { try await EventConformance.eventNamesByteOrder(backend) }
    @Test("ordinary statistics: created at first subscription, total and last on publish")
    func ordinaryStatistics() async throws { try await EventConformance.ordinaryStatistics(backend) }
    @Test("subscriber counts follow every path that adds or removes subscriptions and subscribers")
    func subscriberCountsDoNotDrift() async throws { try await EventConformance.subscriberCountsDoNotDrift(backend) }
    @Test("broadcast statistics exist from the first broadcast and go with the last subscriber")
    func broadcastStatistics() async throws { try await EventConformance.broadcastStatistics(backend) }
    @Test("unicast statistics exist from the first unicast and go with the subscriber")
    func unicastStatistics() async throws { try await EventConformance.unicastStatistics(backend) }
    @Test("test publishes touch no statistics")
    func testPublishHasNoStatistics() async throws { try await EventConformance.testPublishHasNoStatistics(backend) }
    @Test("deleteEvent on an ordinary name removes its subscriptions, not its subscribers")
    func deleteOrdinaryEvent() async throws { try await EventConformance.deleteOrdinaryEvent(backend) }
    @Test("deleteEvent on special names clears statistics and explicit subscriptions only")
    func deleteSpecialEvents() async throws { try await EventConformance.deleteSpecialEvents(backend) }
    @Test("explicit subscriptions to special names are stored but are not their statistics")
    func subscriptionsToSpecialNames() async throws { try await EventConformance.subscriptionsToSpecialNames(backend) }
}

@Suite("PostgreSQL store conformance: publish receipts")
struct ReceiptConformanceTests {
    @Test("a publish without audience is done at once; one with an audience fans out, counting its subscribers")
    func receiptOnEnqueue() async throws { try await ReceiptConformance.receiptOnEnqueue(backend) }
    @Test("a publish sent now is announced to listeners, with or without audience; a scheduled one is not, nor a repeat")
    func publishesSentNowAreAnnounced() async throws { try await ReceiptConformance.publishesSentNowAreAnnounced(backend) }
    @Test("settlements count delivered, failed, dead letters and reasons; retries count from the queue; the last one makes it done")
    func progressToDone() async throws { try await ReceiptConformance.progressToDone(backend) }
    @Test("a scheduled publish waits, is released once when due (as a job), and cannot be cancelled after")
    func scheduled() async throws { try await ReceiptConformance.scheduled(backend) }
    @Test("cancelling a scheduled publish stops it; cancelling twice or an unknown id says so")
    func cancel() async throws { try await ReceiptConformance.cancel(backend) }
    @Test("an idempotency key repeats the first publish within its window, refuses another request, and expires")
    func idempotency() async throws { try await ReceiptConformance.idempotency(backend) }
    @Test("many publishes at once, to events with and without subscribers, each answered as if alone; one whose id is taken fails alone")
    func concurrentPublishesAnswerEachCaller() async throws { try await ReceiptConformance.concurrentPublishesAnswerEachCaller(backend) }
    @Test("publishes sent at once with one idempotency key publish once; the others repeat it")
    func concurrentIdempotency() async throws { try await ReceiptConformance.concurrentIdempotency(backend) }
    @Test("pruning deletes old finished receipts, forgets old keys, and finishes publishes with nothing left")
    func prune() async throws { try await ReceiptConformance.prune(backend) }
    @Test("imported receipts read back as they were, a scheduled one is released when due, and a second import writes nothing")
    func importPublishes() async throws { try await ReceiptConformance.importPublishes(backend) }
}

@Suite("PostgreSQL store conformance: publish queue")
struct PublishQueueConformanceTests {
    @Test("enqueue stores a job only for a non-empty audience, ids increasing")
    func enqueue() async throws { try await PublishQueueConformance.enqueue(backend) }
    @Test("claimed jobs round-trip and are claimed oldest first, once")
    func claimJobs() async throws { try await PublishQueueConformance.claimJobs(backend) }
    @Test("a publish shared out: boundaries cut the audience into parts; the parts are jobs of their own, claimable by others, covering it once")
    func sharedPublish() async throws { try await PublishQueueConformance.sharedPublish(backend) }
    @Test("a page read incrementing badges: marked members show the badge before and store its increment; others keep theirs; the page stops at the part's end (here every counting member is marked: one statement)")
    func audienceIncrementingBadges() async throws {
        #expect(try await PublishQueueConformance.audienceIncrementingBadges(backend) == PublishQueueConformance.badgeShapes.count)
    }
    @Test("an expired lease passes to another worker; the old owner cannot checkpoint or complete")
    func leaseExpiry() async throws { try await PublishQueueConformance.leaseExpiry(backend) }
    @Test("event audience: 1,234 subscribers in pages of 100, each once, with their silent flags")
    func eventAudiencePages() async throws { try await PublishQueueConformance.eventAudiencePages(backend) }
    @Test("broadcast audience is every subscriber once, never silent, whatever the subscriptions")
    func broadcastAudience() async throws { try await PublishQueueConformance.broadcastAudience(backend) }
    @Test("unicast and test audiences are the one subscriber, not silent")
    func singleAudiences() async throws { try await PublishQueueConformance.singleAudiences(backend) }
    @Test("completeJob removes the job for its owner only")
    func completeJob() async throws { try await PublishQueueConformance.completeJob(backend) }
}

@Suite("PostgreSQL store conformance: retry queue")
struct RetryQueueConformanceTests {
    @Test("retries round-trip and are claimed when due, earliest first")
    func scheduleAndClaim() async throws { try await RetryQueueConformance.scheduleAndClaim(backend) }
    @Test("reschedule releases the lease; complete removes the retry")
    func rescheduleAndComplete() async throws { try await RetryQueueConformance.rescheduleAndComplete(backend) }
    @Test("a leased retry is claimable again once its lease expires, and nextRetryDue says when")
    func abandonedLease() async throws { try await RetryQueueConformance.abandonedLease(backend) }
    @Test("retries of missing subscribers are not kept")
    func retriesFollowTheirSubscriber() async throws { try await RetryQueueConformance.retriesFollowTheirSubscriber(backend) }
}

@Suite("PostgreSQL store conformance: delivery records and feedback")
struct FeedbackConformanceTests {
    @Test("delivered counts in statistics and resets the failure counter")
    func delivered() async throws { try await FeedbackConformance.delivered(backend) }
    @Test("a page of successes resets its own failing subscribers only, beside failures in the same page")
    func resetsBesideFailures() async throws { try await FeedbackConformance.resetsBesideFailures(backend) }
    @Test("a success whose counter was read as 0 writes no reset, but resets failures earlier in its records")
    func resetsOnlyCountersReadAboveZero() async throws { try await FeedbackConformance.resetsOnlyCountersReadAboveZero(backend) }
    @Test("failure counters follow the records in order")
    func counterOrder() async throws { try await FeedbackConformance.counterOrder(backend) }
    @Test("subscriber failures unregister at maxFailures with reason failures:<n>")
    func failureThreshold() async throws { try await FeedbackConformance.failureThreshold(backend) }
    @Test("maxFailures 0 never unregisters for failures")
    func thresholdDisabled() async throws { try await FeedbackConformance.thresholdDisabled(backend) }
    @Test("dead tokens unregister unless the subscriber registered again since")
    func deadTokens() async throws { try await FeedbackConformance.deadTokens(backend) }
    @Test("failed counts without touching the subscriber; /test counts nowhere")
    func plainFailures() async throws { try await FeedbackConformance.plainFailures(backend) }
    @Test("a page of 500 outcomes is recorded in one call")
    func recordPage() async throws { try await FeedbackConformance.recordPage(backend) }
    @Test("the feedback log pages by cursor and filters by time")
    func feedbackPaging() async throws { try await FeedbackConformance.feedbackPaging(backend) }
}

@Suite("PostgreSQL store conformance: token replacement")
struct TokenReplacementConformanceTests {
    @Test("a replacement is stored with a `replaced` entry; a duplicate holder is deleted instead")
    func replacements() async throws { try await TokenReplacementConformance.replacements(backend) }
}

@Suite("PostgreSQL store conformance: dead letters")
struct DeadLetterConformanceTests {
    @Test("failures with content become dead letters in the same call; successes and dead tokens do not")
    func recorded() async throws { try await DeadLetterConformance.recorded(backend) }
    @Test("listing filters by provider, event and time and pages by id")
    func filters() async throws { try await DeadLetterConformance.filters(backend) }
    @Test("replay turns dead letters into due retries with a fresh budget; orphans stay")
    func replay() async throws { try await DeadLetterConformance.replay(backend) }
    @Test("replay and deletion honour the filter and the limit")
    func limits() async throws { try await DeadLetterConformance.limits(backend) }
    @Test("pruning removes dead letters and feedback older than the cut-off only")
    func pruning() async throws { try await DeadLetterConformance.pruning(backend) }
    @Test("releasing leases lets another worker claim jobs and retries at once")
    func releaseLeases() async throws { try await DeadLetterConformance.releaseLeases(backend) }
}

@Suite("PostgreSQL store conformance: settlement")
struct SettlementConformanceTests {
    @Test("one settlement records outcomes, schedules, reschedules and ends retries, and checkpoints its job")
    func settleEverything() async throws { try await SettlementConformance.settleEverything(backend) }
    @Test("pending members written as a range or as none come back as written")
    func pendingFormsRoundTrip() async throws { try await SettlementConformance.pendingFormsRoundTrip(backend) }
    @Test("a checkpoint is written only by the job's holder; a complete one removes the job")
    func checkpointsNeedTheLease() async throws { try await SettlementConformance.checkpointsNeedTheLease(backend) }
    @Test("leases of jobs and claimed retries are renewed for their owner only")
    func renewLeases() async throws { try await SettlementConformance.renewLeases(backend) }
    @Test("members are read by id within the audience; subscribers by id")
    func readByID() async throws { try await SettlementConformance.readByID(backend) }
}

@Suite("PostgreSQL store conformance: raw-token deliveries and origins")
struct RawDeliveryConformanceTests {
    @Test("raw-token deliveries round-trip through the queue with their payload and origin, and count in the backlog")
    func rawDeliveriesRoundTrip() async throws { try await RawDeliveryConformance.rawDeliveriesRoundTrip(backend) }
    @Test("settling raw-token outcomes writes feedback and dead letters without a subscriber, with their origin")
    func rawOutcomesSettleWithOrigin() async throws { try await RawDeliveryConformance.rawOutcomesSettleWithOrigin(backend) }
    @Test("deadTokens finds the raw tokens a service called dead for a provider since a time, and no others")
    func deadTokensOfAProvider() async throws { try await RawDeliveryConformance.deadTokensOfAProvider(backend) }
    @Test("deliveries queued under a living key are queued once, even by concurrent callers; an expired key queues again and is pruned")
    func deliveredOncePerKey() async throws { try await RawDeliveryConformance.deliveredOncePerKey(backend) }
    @Test("feedback is filtered by origin and provider, each with a cursor")
    func feedbackFiltersByOriginAndProvider() async throws { try await RawDeliveryConformance.feedbackFiltersByOriginAndProvider(backend) }
    @Test("a publish job keeps the front-end it came through and its content, an event or a prepared payload")
    func jobsKeepTheirOriginAndContent() async throws { try await RawDeliveryConformance.jobsKeepTheirOriginAndContent(backend) }
    @Test("a front-end takes its own feedback once, of the actions it asks for, with the service's invalid-since time")
    func frontEndsTakeTheirFeedbackOnce() async throws { try await RawDeliveryConformance.frontEndsTakeTheirFeedbackOnce(backend) }
}

@Suite("PostgreSQL store conformance: runtime")
struct StoreRuntimeConformanceTests {
    @Test("committed jobs, queued deliveries and announced events are each reported on the wake-up stream")
    func wakeUpsReportCommittedWork() async throws { try await StoreRuntimeConformance.wakeUpsReportCommittedWork(backend) }
    @Test("every subscriber of the wake-up stream gets every wake-up")
    func everySubscriberGetsEveryWakeUp() async throws { try await StoreRuntimeConformance.everySubscriberGetsEveryWakeUp(backend) }
}

@Suite("PostgreSQL store conformance: groups audience")
struct GroupsAudienceConformanceTests {
    @Test("a groups publish is stored only when a subscriber of its provider is in a listed event, and counts in each listed event that exists")
    func enqueueAndStatistics() async throws { try await GroupsAudienceConformance.enqueueAndStatistics(backend) }
    @Test("a groups audience pages through the distinct subscribers of its provider in any listed event, ascending by id, none silent")
    func distinctMembersInPages() async throws { try await GroupsAudienceConformance.distinctMembersInPages(backend) }
}

@Suite("PostgreSQL store conformance: importing subscribers")
struct SubscriberImportConformanceTests {
    @Test("importSubscribers keeps ids, fields, badges, times and subscriptions")
    func importKeepsEverything() async throws { try await SubscriberImportConformance.importKeepsEverything(backend) }
    @Test("re-importing updates by id: fields, times, badge, subscription set; counts stay right")
    func reimportUpdatesById() async throws { try await SubscriberImportConformance.reimportUpdatesById(backend) }
    @Test("a (proto, token) another id holds is reported and left alone, in the store and within a batch")
    func importLeavesConflictsAlone() async throws { try await SubscriberImportConformance.importLeavesConflictsAlone(backend) }
    @Test("importEventStatistics writes statistics of events that exist and drops the others")
    func importEventStatistics() async throws { try await SubscriberImportConformance.importEventStatistics(backend) }
    @Test("a batch of thousands is written in one call")
    func importLargeBatch() async throws { try await SubscriberImportConformance.importLargeBatch(backend) }
}

@Suite("Store conformance: front-end leases")
struct FrontEndLeaseConformanceTests {
    @Test("one owner at a time; the holder renews; a released lease is free at once")
    func oneOwnerAtATime() async throws { try await FrontEndLeaseConformance.oneOwnerAtATime(backend) }
    @Test("a lease not renewed in time goes to whoever asks next")
    func expiredLeaseIsTakenOver() async throws { try await FrontEndLeaseConformance.expiredLeaseIsTakenOver(backend) }
}

@Suite("Store conformance: importing work (herald migrate)")
struct WorkImportConformanceTests {
    @Test("pending work, feedback and dead letters keep their ids and fields, a rerun writes nothing, later rows get larger ids")
    func importKeepsIdsAndIsIdempotent() async throws { try await WorkImportConformance.importKeepsIdsAndIsIdempotent(backend) }
    @Test("imported failure counters and delivery counts are kept")
    func importKeepsCounters() async throws { try await WorkImportConformance.importKeepsCounters(backend) }
}

@Suite("PostgreSQL store conformance: API tokens")
struct TokenConformanceTests {
    @Test("tokens round-trip with their scopes and digests, listed by name in byte order; a taken name is refused and left unchanged")
    func tokensRoundTrip() async throws { try await TokenConformance.tokensRoundTrip(backend) }
    @Test("a revoked token is gone, and its name is free again; revoking it again or an unknown name finds nothing")
    func revocation() async throws { try await TokenConformance.revocation(backend) }
    @Test("recorded uses keep the later time and touch nothing else; unknown names are ignored and an empty record is a no-op")
    func lastUse() async throws { try await TokenConformance.lastUse(backend) }
}

@Suite("PostgreSQL store conformance: UnifiedPush")
struct UnifiedPushConformanceTests {
    @Test("a topic is created unbound or bound, keeps the first key it is bound to, and subscribing or touching it marks it subscribed")
    func topics() async throws { try await UnifiedPushConformance.topics(backend) }
    @Test("messages round-trip with their bytes (NUL and 0xFF included, or none), urgency and key, each with a sequence larger than the last")
    func messagesRoundTrip() async throws { try await UnifiedPushConformance.messagesRoundTrip(backend) }
    @Test("every cursor reads what it promises, oldest first and at most the limit: all, after a sequence, since a time, after a known or an unknown id")
    func cursors() async throws { try await UnifiedPushConformance.cursors(backend) }
    @Test("a read returns the messages of the topics it names only, interleaved in the order they were stored")
    func topicsFilter() async throws { try await UnifiedPushConformance.topicsFilter(backend) }
    @Test("a message with a key replaces the unexpired one of its topic with that key, and no other; the replacement is read after the rest")
    func replacement() async throws { try await UnifiedPushConformance.replacement(backend) }
    @Test("a message is returned while its expiry is after `now`, and not from its expiry on, whatever the cursor")
    func expiry() async throws { try await UnifiedPushConformance.expiry(backend) }
    @Test("pruning deletes expired messages and the topics idle since the given time with no message left, and keeps the rest")
    func pruning() async throws { try await UnifiedPushConformance.pruning(backend) }
}
