import Foundation
import HeraldCore
import HeraldFCM
import HeraldHTTP2
import HeraldSimulators
import Testing

/// The `fcm` kind against the FCM simulator over real TLS and HTTP/2: delivery, the OAuth token's life, and every
/// answer class.
@Suite struct FCMDeliveryTests {
    private let event = PublishedEvent(
        event: "sport", title: LocalizedText(["default": "Goal"]), message: LocalizedText(["default": "1-0"]), data: ["user_id": "42"])

    @Test(arguments: HTTP2Engine.allCases)
    func deliversExactlyTheRenderedMessage(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let token = FCMFixture.token(1)
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(token))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == .delivered)
        let accepted = try #require(fixture.simulator.accepted().first)
        #expect(accepted.body == #"{"message":{"token":"\#(token)","data":{"title":"Goal","message":"1-0","user_id":"42"},"android":{"collapse_key":"sport"}}}"#)
        #expect(accepted.projectID == "herald-test")
        #expect(accepted.token == token)
        #expect(accepted.header(":path") == "/v1/projects/herald-test/messages:send")
        #expect(accepted.header("authorization")?.hasPrefix("Bearer ya29.") == true)
        #expect(accepted.header("content-type") == "application/json; charset=utf-8")
        #expect(accepted.name.hasPrefix("projects/herald-test/messages/0:"))
        #expect(fixture.simulator.tokenExchangeCount == 1)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func theExtensionKeysPassTheSimulatorsValidation(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        var event = event
        event.ttl = 3600
        event.priority = .high
        event.collapseKey = "score"
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(FCMFixture.token(2)))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == .delivered)
        #expect(fixture.simulator.accepted().first?.body.contains(#""android":{"collapse_key":"score","priority":"high","ttl":"3600s"}"#) == true)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func concurrentSendsShareOneTokenExchange(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let message = try FCMFixture.message(provider, event)
        let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
            for number in 0..<1000 {
                group.addTask { await provider.send(message, to: FCMFixture.target(FCMFixture.token(number))) }
            }
            return await group.reduce(into: [DeliveryOutcome]()) { $0.append($1) }
        }
        await provider.shutdown()
        await fixture.stop()

        #expect(outcomes.count == 1000)
        #expect(outcomes.allSatisfy { $0 == .delivered })
        #expect(fixture.simulator.tokenExchangeCount == 1)
        #expect(Set(fixture.simulator.acceptedTokens()).count == 1000)
    }

    @Test(arguments: HTTP2Engine.allCases, [false, true])
    func aRevokedOrExpiredTokenIsRefreshedOnceAndTheSendRetried(engine: HTTP2Engine, expire: Bool) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let message = try FCMFixture.message(provider, event)
        #expect(await provider.send(message, to: FCMFixture.target(FCMFixture.token(1))) == .delivered)
        if expire {
            fixture.simulator.expireAccessTokens()
        } else {
            fixture.simulator.revokeAccessTokens()
        }
        let outcome = await provider.send(message, to: FCMFixture.target(FCMFixture.token(2)))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == .delivered)
        let statistics = fixture.simulator.statistics()
        #expect(statistics.rejections["UNAUTHENTICATED"] == 1)
        #expect(statistics.tokenExchanges == 2)
        #expect(fixture.simulator.acceptedTokens() == [FCMFixture.token(1), FCMFixture.token(2)])
    }

    @Test(arguments: HTTP2Engine.allCases)
    func manyRefusalsAtOnceShareOneRefresh(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let message = try FCMFixture.message(provider, event)
        #expect(await provider.send(message, to: FCMFixture.target(FCMFixture.token(0))) == .delivered)
        fixture.simulator.revokeAccessTokens()
        let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
            for number in 1...300 {
                group.addTask { await provider.send(message, to: FCMFixture.target(FCMFixture.token(number))) }
            }
            return await group.reduce(into: [DeliveryOutcome]()) { $0.append($1) }
        }
        await provider.shutdown()
        await fixture.stop()

        #expect(outcomes.allSatisfy { $0 == .delivered })
        #expect(fixture.simulator.tokenExchangeCount == 2, "one exchange for the first send, one after the revocation")
    }

    @Test(arguments: HTTP2Engine.allCases)
    func aTokenIsRenewedBeforeItExpires(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start { $0.accessTokenLifetime = 3 }
        let provider = try await fixture.provider(engine: engine)
        let message = try FCMFixture.message(provider, event)
        _ = await provider.send(message, to: FCMFixture.target(FCMFixture.token(1)))
        let before = fixture.simulator.statistics()
        // Past the token's lifetime: the provider must fetch a new token before sending, not wait for a 401.
        try await Task.sleep(for: .milliseconds(3100))
        let outcome = await provider.send(message, to: FCMFixture.target(FCMFixture.token(2)))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == .delivered)
        let after = fixture.simulator.statistics()
        #expect(after.tokenExchanges == before.tokenExchanges + 1)
        #expect(after.rejections["UNAUTHENTICATED"] == before.rejections["UNAUTHENTICATED"], "renewed ahead, never refused")
    }

    @Test(arguments: HTTP2Engine.allCases)
    func aSecondRefusalAfterRefreshIsAConfigurationFailure(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let refusal = FCMSimulator.Injection.error(httpStatus: 401, status: "UNAUTHENTICATED", errorCode: nil, message: "Request had invalid authentication credentials.")
        fixture.simulator.injectNext([refusal, refusal])
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(FCMFixture.token(1)))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == DeliveryOutcome(.configurationFailure, reason: FCMResponseTable.accessTokenRejected, status: 401))
        #expect(fixture.simulator.tokenExchangeCount == 2)
        #expect(fixture.simulator.requestCount == 2)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func unregisteredTokensAreDead(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let token = FCMFixture.token(9)
        fixture.simulator.unregister(token: token)
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(token))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == DeliveryOutcome(.deadToken, reason: "UNREGISTERED", status: 404))
        #expect(fixture.simulator.acceptedCount == 0)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func malformedAndInvalidTokensAreDead(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let message = try FCMFixture.message(provider, event)
        let invalid = FCMFixture.token(3)
        fixture.simulator.markInvalid(token: invalid)
        let malformed = await provider.send(message, to: FCMFixture.target("abc"))
        let marked = await provider.send(message, to: FCMFixture.target(invalid))
        await provider.shutdown()
        await fixture.stop()

        #expect(malformed == DeliveryOutcome(.deadToken, reason: "INVALID_ARGUMENT", status: 400))
        #expect(marked == DeliveryOutcome(.deadToken, reason: "INVALID_ARGUMENT", status: 400))
    }

    @Test(arguments: HTTP2Engine.allCases)
    func senderIDMismatchIsASubscriberFailure(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let token = FCMFixture.token(4)
        fixture.simulator.markSenderMismatch(token: token)
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(token))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == DeliveryOutcome(.subscriberFailure, reason: "SENDER_ID_MISMATCH", status: 403))
    }

    @Test(arguments: HTTP2Engine.allCases)
    func thirdPartyAuthErrorIsAConfigurationFailureWithoutRefresh(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        fixture.simulator.injectNext([.thirdPartyAuthError])
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(FCMFixture.token(5)))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == DeliveryOutcome(.configurationFailure, reason: "THIRD_PARTY_AUTH_ERROR", status: 401))
        #expect(fixture.simulator.tokenExchangeCount == 1)
        #expect(fixture.simulator.requestCount == 1)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func quotaExceededIsTransientWithRetryAfter(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        fixture.simulator.injectNext([.quotaExceeded(retryAfter: 17)])
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(FCMFixture.token(6)))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome == DeliveryOutcome(.transient, reason: "QUOTA_EXCEEDED", status: 429, retryAfter: .seconds(17)))
    }

    @Test(arguments: HTTP2Engine.allCases)
    func serverErrorsAreTransient(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        let message = try FCMFixture.message(provider, event)
        fixture.simulator.injectNext([.internalError, .unavailable(retryAfter: 5)])
        let internalError = await provider.send(message, to: FCMFixture.target(FCMFixture.token(7)))
        let unavailable = await provider.send(message, to: FCMFixture.target(FCMFixture.token(7)))
        let delivered = await provider.send(message, to: FCMFixture.target(FCMFixture.token(7)))
        await provider.shutdown()
        await fixture.stop()

        #expect(internalError == DeliveryOutcome(.transient, reason: "INTERNAL", status: 500))
        #expect(unavailable == DeliveryOutcome(.transient, reason: "UNAVAILABLE", status: 503, retryAfter: .seconds(5)))
        #expect(delivered == .delivered)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func connectionTroubleIsTransientAndTheNextSendReconnects(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(["request_timeout": "10"], engine: engine)
        let message = try FCMFixture.message(provider, event)
        fixture.simulator.injectNext([.resetConnection])
        let reset = await provider.send(message, to: FCMFixture.target(FCMFixture.token(8)))
        // A send racing the pool's notice of the dead connection may still fail on it (on a loaded
        // machine, several in a row); a later one reconnects.
        var delivered = await provider.send(message, to: FCMFixture.target(FCMFixture.token(8)))
        for _ in 0..<50 where delivered != .delivered {
            try await Task.sleep(for: .milliseconds(100))
            delivered = await provider.send(message, to: FCMFixture.target(FCMFixture.token(8)))
        }
        await provider.shutdown()
        await fixture.stop()

        #expect(reset.outcome == .transient)
        #expect(reset.status == nil)
        #expect(reset.reason?.isEmpty == false)
        #expect(delivered == .delivered)
        #expect(fixture.simulator.statistics().connections >= 2)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func aGoAwayIsRetriedOnANewConnection(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        fixture.simulator.injectNext([.goAway])
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(FCMFixture.token(8)))
        await provider.shutdown()
        await fixture.stop()

        // The GOAWAY excludes the request, so the pool sends it again on a new connection.
        #expect(outcome == .delivered)
        #expect(fixture.simulator.statistics().goAwaysSent == 1)
        #expect(fixture.simulator.requestCount == 2)
    }

    @Test(arguments: HTTP2Engine.allCases)
    func anAccountTheTokenEndpointDoesNotKnowIsAConfigurationFailure(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let file = fixture.directory + "/stranger.json"
        try FCMFixture.strangerAccount.write(to: file, tokenURI: fixture.simulator.tokenURL!)
        let provider = try await fixture.provider(serviceAccountFile: file, engine: engine)
        let outcome = await provider.send(try FCMFixture.message(provider, event), to: FCMFixture.target(FCMFixture.token(1)))
        await provider.shutdown()
        await fixture.stop()

        #expect(outcome.outcome == .configurationFailure)
        #expect(outcome.status == 400)
        #expect(outcome.reason?.contains("invalid_grant") == true)
        #expect(fixture.simulator.statistics().tokenRejections["invalid_grant"] == 1)
        #expect(fixture.simulator.requestCount == 0, "nothing is sent without a token")
    }

    @Test(arguments: HTTP2Engine.allCases)
    func aTokenEndpointOutageIsTransient(engine: HTTP2Engine) async throws {
        let fixture = try await FCMFixture.start()
        let provider = try await fixture.provider(engine: engine)
        fixture.simulator.injectNextTokenRequests([.unavailable(retryAfter: 9)])
        let message = try FCMFixture.message(provider, event)
        let outage = await provider.send(message, to: FCMFixture.target(FCMFixture.token(1)))
        let delivered = await provider.send(message, to: FCMFixture.target(FCMFixture.token(1)))
        await provider.shutdown()
        await fixture.stop()

        #expect(outage.outcome == .transient)
        #expect(outage.status == 503)
        #expect(outage.retryAfter == .seconds(9))
        #expect(delivered == .delivered)
    }
}
