import HeraldCore
import HeraldHMS
import Testing

/// Every row of the answer table: Push Kit's codes whatever the HTTP status, and the statuses of answers without one.
@Suite struct HMSAnswerTableTests {
    private func body(_ code: String, _ msg: String = "m") -> [UInt8] {
        Array(#"{"code":"\#(code)","msg":"\#(msg)","requestId":"157440955549886234000901"}"#.utf8)
    }

    private func verdict(_ status: Int, _ body: [UInt8], retryAfter: String? = nil) -> HMSAnswerTable.Verdict {
        HMSAnswerTable.verdict(status: status, body: body, retryAfter: retryAfter)
    }

    @Test func successIsDelivered() {
        #expect(verdict(200, body("80000000", "Success")) == .delivered)
    }

    @Test func aPartialSuccessNamesItsIllegalTokens() {
        let msg = #"{\"success\":1,\"failure\":2,\"illegal_tokens\":[\"t1\",\"t2\"]}"#
        let dead = DeliveryOutcome(.deadToken, reason: "80100000", status: 200)
        #expect(verdict(200, body("80100000", msg)) == .partiallyDelivered(illegalTokens: ["t1": dead, "t2": dead]))
    }

    @Test func newerPartialSuccessesNameTheCause() {
        let msg = #"{\"failure\":1,\"illegalTokens\":{\"noRight\":[\"t1\"]}}"#
        #expect(verdict(200, body("80100000", msg))
            == .partiallyDelivered(illegalTokens: ["t1": DeliveryOutcome(.deadToken, reason: "80100000 noRight", status: 200)]))
    }

    @Test func anUnreadablePartialSuccessDropsNoToken() {
        #expect(verdict(200, body("80100000", "Check Parameter Partial Success.")) == .partiallyDelivered(illegalTokens: [:]))
    }

    @Test func everyTokenInvalidIsDeadUnlessTheProviderDecidesOtherwise() {
        #expect(verdict(400, body("80300007", "All the tokens are invalid"))
            == .allTokensInvalid(DeliveryOutcome(.deadToken, reason: "80300007", status: 400)))
        #expect(HMSAnswerTable.probablyMisconfigured.outcome == .transient)
        #expect(HMSAnswerTable.probablyMisconfigured.status == nil, "so that the circuit breaker counts it")
    }

    @Test(arguments: ["80200001", "80200003"])
    func aRefusedAccessTokenIsRenewedOnce(code: String) {
        #expect(verdict(401, body(code)) == .accessTokenRejected(DeliveryOutcome(.configurationFailure, reason: code, status: 401)))
        #expect(verdict(200, body(code)) == .accessTokenRejected(DeliveryOutcome(.configurationFailure, reason: code, status: 200)))
    }

    @Test func tooManyTokensSplitsTheBatch() {
        #expect(verdict(400, body("80300010", "too many"))
            == .tooManyTokens(DeliveryOutcome(.messageFailure, reason: "80300010: too many", status: 400)))
    }

    @Test(arguments: ["80300008", "80100001", "80100003", "80100004", "80100016"])
    func aWrongMessageIsAMessageFailure(code: String) {
        #expect(verdict(400, body(code, "Illegal payload")) == .everyone(DeliveryOutcome(.messageFailure, reason: "\(code): Illegal payload", status: 400)))
        #expect(verdict(200, body(code, "")) == .everyone(DeliveryOutcome(.messageFailure, reason: code, status: 200)), "the code decides, not the status")
    }

    @Test func anAppWithoutPermissionIsAConfigurationFailure() {
        #expect(verdict(403, body("80300002", "no permission"))
            == .everyone(DeliveryOutcome(.configurationFailure, reason: "80300002: no permission", status: 403)))
    }

    @Test func internalErrorsAreTransientHonouringRetryAfter() {
        #expect(verdict(500, body("81000001"), retryAfter: "5")
            == .everyone(DeliveryOutcome(.transient, reason: "81000001", status: 500, retryAfter: .seconds(5))))
        #expect(verdict(500, body("80600003")) == .everyone(DeliveryOutcome(.transient, reason: "80600003", status: 500)))
    }

    @Test func answersWithoutACodeGoByStatus() {
        let page = Array("<html><body>Service Unavailable</body></html>".utf8)
        #expect(verdict(503, page, retryAfter: "30") == .everyone(DeliveryOutcome(.transient, reason: "HTTP 503", status: 503, retryAfter: .seconds(30))))
        #expect(verdict(502, []) == .everyone(DeliveryOutcome(.transient, reason: "HTTP 502", status: 502)))
        #expect(verdict(429, []) == .everyone(DeliveryOutcome(.transient, reason: "HTTP 429", status: 429)))
        for status in [401, 403, 404, 302] {
            #expect(verdict(status, []) == .everyone(DeliveryOutcome(.configurationFailure, reason: "HTTP \(status)", status: status)))
        }
        #expect(verdict(400, page) == .everyone(DeliveryOutcome(.messageFailure, reason: "HTTP 400", status: 400)))
        #expect(verdict(200, Array("{}".utf8)) == .everyone(DeliveryOutcome(.transient, reason: "InvalidResponse", status: 200)))
    }

    @Test func anUnknownCodeGoesByStatusAndKeepsTheCode() {
        #expect(verdict(200, body("80999999", "new")) == .everyone(DeliveryOutcome(.messageFailure, reason: "80999999: new", status: 200)))
        #expect(verdict(503, body("80999999", "")) == .everyone(DeliveryOutcome(.transient, reason: "80999999", status: 503)))
        #expect(verdict(401, body("80999999", "")) == .everyone(DeliveryOutcome(.configurationFailure, reason: "80999999", status: 401)))
    }

    @Test func aNumericCodeIsReadToo() {
        #expect(verdict(200, Array(#"{"code":80000000,"msg":"Success"}"#.utf8)) == .delivered)
    }
}
