import Foundation
import HeraldCore
import HeraldHMS
import HeraldSimulators
import Testing

/// The `hms` kind against the HMS simulator over real TLS: the request it sends, batching, the OAuth token's life,
/// and every class of Push Kit's answers.
@Suite struct HMSDeliveryTests {
    private let event = PublishedEvent(
        event: "sport", title: LocalizedText(["default": "Goal", "fr": "But"]), message: LocalizedText(["default": "1-0"]),
        data: ["user_id": "42"])

    // MARK: The request

    @Test func deliversExactlyTheRenderedMessage() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let token = HMSFixture.token(1)
            let outcome = await provider.send(try HMSFixture.message(provider, event), to: HMSFixture.target(token))

            #expect(outcome == .delivered)
            let accepted = try #require(fixture.simulator.accepted().first)
            #expect(accepted.body == #"{"validate_only":false,"message":{"token":["\#(token)"],"data":"{\"user_id\":\"42\"}","android":{"notification":{"title":"Goal","body":"1-0","click_action":{"type":3}}}}}"#)
            #expect(accepted.appID == HMSFixture.clientID)
            #expect(accepted.tokens == [token])
            #expect(accepted.code == "80000000")
            #expect(accepted.header("Authorization")?.hasPrefix("Bearer CgB6e3x9") == true)
            #expect(accepted.header("Content-Type") == "application/json; charset=utf-8")
            #expect(fixture.simulator.tokenExchangeCount == 1)
        }
    }

    @Test func theExtensionKeysAndABadgePassTheSimulatorsChecks() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider(["badge_class": "com.example.app.MainActivity"])
            #expect(provider.countsBadges)
            var event = event
            event.ttl = 3600
            event.priority = .high
            event.collapseKey = "7"
            let variant = provider.variant(lang: "fr", silent: false, badge: 3, version: nil)
            let outcome = await provider.send(try HMSFixture.message(provider, event, variant), to: HMSFixture.target(HMSFixture.token(2)))

            #expect(outcome == .delivered)
            let body = try #require(fixture.simulator.accepted().first?.body)
            #expect(body.contains(#""android":{"collapse_key":7,"urgency":"HIGH","ttl":"3600s","notification":{"title":"But","body":"1-0","click_action":{"type":3},"badge":{"set_num":3,"class":"com.example.app.MainActivity"}}}"#))
        }
    }

    @Test func preparedPayloadsAreSentAsGivenWithTheBatchsTokens() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            guard case .send(let message) = provider.render(PreparedPayload(body: #" {"data":"raw","android":{"urgency":"NORMAL"}} "#)) else {
                Issue.record("a message object without a target is sent as given")
                return
            }
            let tokens = [HMSFixture.token(1), HMSFixture.token(2)]
            let outcomes = await sendBatch(provider, message, to: tokens)

            #expect(outcomes == [.delivered, .delivered])
            #expect(fixture.simulator.accepted().map(\.body) == [
                #"{"validate_only":false,"message":{"token":["\#(tokens[0])","\#(tokens[1])"],"data":"raw","android":{"urgency":"NORMAL"}}}"#,
            ])

            guard case .send(let validateOnly) = provider.render(PreparedPayload(body: #"{"data":"dry"}"#, headers: ["HMS-Validate-Only": "true"])) else {
                Issue.record("hms-validate-only makes a validate-only message")
                return
            }
            #expect(await sendBatch(provider, validateOnly, to: [HMSFixture.token(3)]) == [.delivered])
            #expect(fixture.simulator.accepted().last?.validateOnly == true)
            #expect(fixture.simulator.acceptedTokens() == tokens, "a validate-only request delivers nothing")
        }
    }

    @Test func aMessageOverTheLimitIsRefusedBeforeAnythingIsSent() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let tooBig = PublishedEvent(event: "e", message: LocalizedText(["default": "m"]), data: ["k": String(repeating: "x", count: 4096)])
            guard case .fail(let outcome) = provider.render(tooBig, for: MessageVariant()) else {
                Issue.record("a message over 4096 bytes must not be sent")
                return
            }
            #expect(outcome == DeliveryOutcome(.messageFailure, reason: "PayloadTooLarge"))
            guard case .fail(let raw) = provider.render(PreparedPayload(body: #"{"data":"\#(String(repeating: "y", count: 4100))"}"#)) else {
                Issue.record("a prepared message over 4096 bytes must not be sent")
                return
            }
            #expect(raw.reason == "PayloadTooLarge")
            #expect(fixture.simulator.requestCount == 0)
            #expect(fixture.simulator.tokenExchangeCount == 0)
        }
    }

    // MARK: Batching

    @Test func aBatchOf2500TokensGoesAsThreeRequests() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider(["max_concurrent": "5000"])
            let message = try HMSFixture.message(provider, event)
            let tokens = (0..<2500).map(HMSFixture.token)
            let outcomes = await sendBatch(provider, message, to: tokens)

            #expect(outcomes.count == 2500)
            #expect(outcomes.allSatisfy { $0 == .delivered })
            let statistics = fixture.simulator.statistics()
            #expect(statistics.requests == 3)
            #expect(statistics.delivered == 2500)
            #expect(fixture.simulator.accepted().map(\.tokens.count).sorted() == [500, 1000, 1000])
            #expect(Set(fixture.simulator.acceptedTokens()) == Set(tokens))
            #expect(statistics.tokenExchanges == 1, "the three requests share one access token")
        }
    }

    @Test func onlyEqualMessagesShareARequest() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let english = try HMSFixture.message(provider, event, MessageVariant(lang: "en"))
            let french = try HMSFixture.message(provider, event, MessageVariant(lang: "fr"))
            // Rendered again: equal text, another value; it still joins the first English batch.
            let englishAgain = try HMSFixture.message(provider, event, MessageVariant(lang: "en"))
            let messages = [english, french, englishAgain, french, english]
            let deliveries = messages.enumerated().map { (message: $0.element, target: HMSFixture.target(HMSFixture.token($0.offset))) }
            let outcomes = await sendBatch(provider, deliveries)

            #expect(outcomes.allSatisfy { $0 == .delivered })
            let batches = fixture.simulator.accepted().map { Set($0.tokens) }
            #expect(batches.count == 2)
            #expect(batches.contains([HMSFixture.token(0), HMSFixture.token(2), HMSFixture.token(4)]))
            #expect(batches.contains([HMSFixture.token(1), HMSFixture.token(3)]))
        }
    }

    @Test func tooManyTokensSplitsTheBatchInHalves() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let message = try HMSFixture.message(provider, event)
            fixture.simulator.injectNext([.tooManyTokens])
            let outcomes = await sendBatch(provider, message, to: (0..<4).map(HMSFixture.token))

            #expect(outcomes.allSatisfy { $0 == .delivered })
            #expect(fixture.simulator.requestCount == 3)
            #expect(fixture.simulator.accepted().map(\.tokens.count) == [2, 2])

            fixture.simulator.injectNext([.tooManyTokens])
            let alone = await provider.send(message, to: HMSFixture.target(HMSFixture.token(9)))
            #expect(alone.outcome == .messageFailure, "a batch of one cannot be split")
            #expect(alone.status == 400)
            #expect(alone.reason?.hasPrefix("80300010") == true)
        }
    }

    // MARK: Dead tokens

    @Test func aPartialSuccessUnregistersExactlyTheIllegalTokens() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let tokens = (0..<5).map(HMSFixture.token)
            fixture.simulator.unregister(tokens: [tokens[1], tokens[3]])
            let outcomes = await sendBatch(provider, try HMSFixture.message(provider, event), to: tokens)

            let dead = DeliveryOutcome(.deadToken, reason: "80100000", status: 200)
            #expect(outcomes == [.delivered, dead, .delivered, dead, .delivered])
            #expect(fixture.simulator.requestCount == 1)
            let accepted = try #require(fixture.simulator.accepted().first)
            #expect(accepted.code == "80100000")
            #expect(accepted.illegalTokens == [tokens[1], tokens[3]])
            #expect(fixture.simulator.acceptedTokens() == [tokens[0], tokens[2], tokens[4]])
        }
    }

    @Test func everyTokenInvalidInOneBatchIsDead() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let tokens = (0..<3).map(HMSFixture.token)
            fixture.simulator.unregister(tokens: tokens)
            let outcomes = await sendBatch(provider, try HMSFixture.message(provider, event), to: tokens)

            let dead: DeliveryOutcome? = DeliveryOutcome(.deadToken, reason: "80300007", status: 400)
            #expect(outcomes == [dead, dead, dead])
            #expect(fixture.simulator.statistics().rejections["80300007"] == 1)
        }
    }

    @Test func everyTokenInvalidInEveryBatchOfTheLastMinuteIsAProviderFailure() async throws {
        try await HMSFixture.with { fixture in
            let clock = ManualClock()
            let provider = try await fixture.provider(clock: clock.wallClock)
            let message = try HMSFixture.message(provider, event)
            let strangers = (100..<106).map(HMSFixture.token)
            fixture.simulator.unregister(tokens: strangers)

            // One batch of invalid tokens: they are dead.
            let first = await sendBatch(provider, message, to: Array(strangers[0..<2]))
            #expect(first.allSatisfy { $0?.outcome == .deadToken })

            // Every batch of the last minute answered the same: the provider, not the tokens.
            clock.advance(seconds: 20)
            let second = await sendBatch(provider, message, to: Array(strangers[2..<4]))
            clock.advance(seconds: 20)
            let third = await sendBatch(provider, message, to: Array(strangers[4..<6]))
            for outcome in second + third {
                #expect(outcome == HMSAnswerTable.probablyMisconfigured)
                #expect(outcome?.outcome == .transient, "retried, and counted by the provider's breaker")
                #expect(outcome?.status == nil)
            }

            // A batch Push Kit accepts shows the credentials work: invalid tokens are dead again.
            #expect(await sendBatch(provider, message, to: [HMSFixture.token(1)]) == [.delivered])
            clock.advance(seconds: 5)
            let afterwards = await sendBatch(provider, message, to: Array(strangers[0..<2]))
            #expect(afterwards.allSatisfy { $0?.outcome == .deadToken })
            #expect(fixture.simulator.statistics().rejections["80300007"] == 4)
        }
    }

    // MARK: The access token

    @Test func concurrentBatchesShareOneTokenRequest() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let message = try HMSFixture.message(provider, event)
            let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
                for number in 0..<50 {
                    group.addTask { await provider.send(message, to: HMSFixture.target(HMSFixture.token(number))) }
                }
                return await group.reduce(into: [DeliveryOutcome]()) { $0.append($1) }
            }

            #expect(outcomes.count == 50)
            #expect(outcomes.allSatisfy { $0 == .delivered })
            #expect(fixture.simulator.tokenExchangeCount == 1)
        }
    }

    @Test func aTokenIsRenewedBeforeItExpires() async throws {
        try await HMSFixture.with(configure: { $0.accessTokenLifetime = 2 }) { fixture in
            let provider = try await fixture.provider()
            let message = try HMSFixture.message(provider, event)
            #expect(await provider.send(message, to: HMSFixture.target(HMSFixture.token(1))) == .delivered)
            // Past the token's lifetime: the provider must fetch a new token before sending, not wait for 80200003.
            try await Task.sleep(for: .milliseconds(2100))
            #expect(await provider.send(message, to: HMSFixture.target(HMSFixture.token(2))) == .delivered)

            let statistics = fixture.simulator.statistics()
            #expect(statistics.tokenExchanges == 2)
            #expect(statistics.rejections["80200003"] == nil, "renewed ahead, never refused")
            #expect(statistics.requests == 2)
        }
    }

    @Test(arguments: [false, true])
    func anExpiredOrRevokedTokenIsRenewedOnceAndTheBatchSentAgain(revoke: Bool) async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let message = try HMSFixture.message(provider, event)
            #expect(await provider.send(message, to: HMSFixture.target(HMSFixture.token(1))) == .delivered)
            if revoke {
                fixture.simulator.revokeAccessTokens()
            } else {
                fixture.simulator.expireAccessTokens()
            }
            let outcomes = await sendBatch(provider, message, to: [HMSFixture.token(2), HMSFixture.token(3)])

            #expect(outcomes == [.delivered, .delivered])
            let statistics = fixture.simulator.statistics()
            #expect(statistics.rejections[revoke ? "80200001" : "80200003"] == 1)
            #expect(statistics.tokenExchanges == 2)
            #expect(statistics.requests == 3)
            #expect(fixture.simulator.acceptedTokens() == [HMSFixture.token(1), HMSFixture.token(2), HMSFixture.token(3)])
        }
    }

    @Test func aSecondRefusalAfterRenewalIsAConfigurationFailure() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            fixture.simulator.injectNext([.accessTokenExpired, .accessTokenExpired])
            let outcome = await provider.send(try HMSFixture.message(provider, event), to: HMSFixture.target(HMSFixture.token(1)))

            #expect(outcome == DeliveryOutcome(.configurationFailure, reason: "80200003", status: 401))
            #expect(fixture.simulator.tokenExchangeCount == 2)
            #expect(fixture.simulator.requestCount == 2)
        }
    }

    @Test func aWrongSecretIsAConfigurationFailureAndNothingIsSent() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider(["client_secret": "not-the-secret"])
            let outcome = await provider.send(try HMSFixture.message(provider, event), to: HMSFixture.target(HMSFixture.token(1)))

            #expect(outcome.outcome == .configurationFailure)
            #expect(outcome.status == 400)
            #expect(outcome.reason?.contains("1101") == true)
            #expect(outcome.reason?.contains("not-the-secret") == false, "the secret never reaches an outcome")
            #expect(fixture.simulator.statistics().tokenRejections["invalid client_secret"] == 1)
            #expect(fixture.simulator.requestCount == 0, "nothing is sent without a token")
        }
    }

    @Test func aTokenEndpointOutageIsTransient() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            fixture.simulator.injectNextTokenRequests([.status(503, retryAfter: 9)])
            let message = try HMSFixture.message(provider, event)
            let outage = await provider.send(message, to: HMSFixture.target(HMSFixture.token(1)))
            let delivered = await provider.send(message, to: HMSFixture.target(HMSFixture.token(1)))

            #expect(outage.outcome == .transient)
            #expect(outage.status == 503)
            #expect(outage.retryAfter == .seconds(9))
            #expect(delivered == .delivered)
        }
    }

    // MARK: Retries

    @Test func serverErrorsAndFlowControlAreRetriedHonouringRetryAfter() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider()
            let message = try HMSFixture.message(provider, event)
            fixture.simulator.injectNext([
                .flowControl(retryAfter: 7), .code("81000001", httpStatus: 500, msg: "System inner error", retryAfter: 3),
                .oauthServiceFailure, .status(502),
            ])
            var outcomes: [DeliveryOutcome] = []
            for _ in 0..<5 {
                outcomes.append(await provider.send(message, to: HMSFixture.target(HMSFixture.token(1))))
            }

            #expect(outcomes[0] == DeliveryOutcome(.transient, reason: "HTTP 503", status: 503, retryAfter: .seconds(7)))
            #expect(outcomes[1] == DeliveryOutcome(.transient, reason: "81000001", status: 500, retryAfter: .seconds(3)))
            #expect(outcomes[2] == DeliveryOutcome(.transient, reason: "80600003", status: 500))
            #expect(outcomes[3] == DeliveryOutcome(.transient, reason: "HTTP 502", status: 502))
            #expect(outcomes[4] == .delivered)
        }
    }

    @Test func connectionTroubleIsTransientWithoutAStatus() async throws {
        try await HMSFixture.with { fixture in
            let provider = try await fixture.provider(["request_timeout": "0.5"])
            fixture.simulator.injectNext([.delay(milliseconds: 3000)])
            let outcome = await provider.send(try HMSFixture.message(provider, event), to: HMSFixture.target(HMSFixture.token(1)))

            #expect(outcome.outcome == .transient)
            #expect(outcome.status == nil, "no answer: the provider's breaker counts it")
            #expect(outcome.reason?.isEmpty == false)
        }
    }
}
