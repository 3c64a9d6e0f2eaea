import HeraldCore
import HeraldFCM
import Testing

/// Every row of pushd-api.md §11.2 for FCM, with Google's error bodies (providers.md §2.4).
@Suite struct FCMResponseTableTests {
    private func body(_ status: Int, _ name: String, message: String = "m", errorCode: String? = nil, field: String? = nil) -> [UInt8] {
        var details: [String] = []
        if let field {
            // BadRequest first: the table must find the FcmError entry in any order.
            details.append(#"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(field)","description":"d"}]}"#)
        }
        if let errorCode {
            details.append(#"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(errorCode)"}"#)
        }
        return Array(#"{"error":{"code":\#(status),"message":"\#(message)","status":"\#(name)","details":[\#(details.joined(separator: ","))]}}"#.utf8)
    }

    private func outcome(_ status: Int, _ body: [UInt8], retryAfter: String? = nil) -> DeliveryOutcome {
        FCMResponseTable.outcome(status: status, body: body, retryAfter: retryAfter)
    }

    @Test func successIsDelivered() {
        #expect(outcome(200, Array(#"{"name":"projects/p/messages/1"}"#.utf8)) == .delivered)
    }

    @Test func unregisteredIsADeadToken() {
        let result = outcome(404, body(404, "NOT_FOUND", errorCode: "UNREGISTERED"))
        #expect(result == DeliveryOutcome(.deadToken, reason: "UNREGISTERED", status: 404))
    }

    @Test func invalidArgumentAboutTheTokenIsADeadToken() {
        let byMessage = outcome(400, body(400, "INVALID_ARGUMENT", message: "The registration token is not a valid FCM registration token", errorCode: "INVALID_ARGUMENT"))
        #expect(byMessage == DeliveryOutcome(.deadToken, reason: "INVALID_ARGUMENT", status: 400))
        let byField = outcome(400, body(400, "INVALID_ARGUMENT", message: "bad", field: "message.token"))
        #expect(byField.outcome == .deadToken)
    }

    @Test func otherInvalidArgumentsAreMessageFailures() {
        let result = outcome(400, body(400, "INVALID_ARGUMENT", message: "Message is too big"))
        #expect(result.outcome == .messageFailure)
        #expect(result.reason == "INVALID_ARGUMENT: Message is too big")
        #expect(outcome(400, body(400, "INVALID_ARGUMENT", field: "message.data[0].value")).outcome == .messageFailure)
    }

    @Test func senderIDMismatchCountsAgainstTheSubscriber() {
        let result = outcome(403, body(403, "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH"))
        #expect(result == DeliveryOutcome(.subscriberFailure, reason: "SENDER_ID_MISMATCH", status: 403))
    }

    @Test func credentialProblemsAreConfigurationFailures() {
        #expect(outcome(401, body(401, "UNAUTHENTICATED", errorCode: "THIRD_PARTY_AUTH_ERROR"))
            == DeliveryOutcome(.configurationFailure, reason: "THIRD_PARTY_AUTH_ERROR", status: 401))
        #expect(outcome(401, body(401, "UNAUTHENTICATED", errorCode: "APNS_AUTH_ERROR")).outcome == .configurationFailure)
        #expect(outcome(403, body(403, "PERMISSION_DENIED")) == DeliveryOutcome(.configurationFailure, reason: "PERMISSION_DENIED", status: 403))
        #expect(outcome(404, Array("<html>404</html>".utf8)).outcome == .configurationFailure)
    }

    @Test func aRefusedAccessTokenIsMarkedForOneRefresh() {
        let result = outcome(401, body(401, "UNAUTHENTICATED"))
        #expect(result == DeliveryOutcome(.configurationFailure, reason: FCMResponseTable.accessTokenRejected, status: 401))
    }

    @Test func overloadAndServerErrorsAreTransientHonouringRetryAfter() {
        #expect(outcome(429, body(429, "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED"), retryAfter: "30")
            == DeliveryOutcome(.transient, reason: "QUOTA_EXCEEDED", status: 429, retryAfter: .seconds(30)))
        #expect(outcome(503, body(503, "UNAVAILABLE", errorCode: "UNAVAILABLE"), retryAfter: "7")
            == DeliveryOutcome(.transient, reason: "UNAVAILABLE", status: 503, retryAfter: .seconds(7)))
        #expect(outcome(500, body(500, "INTERNAL", errorCode: "INTERNAL")) == DeliveryOutcome(.transient, reason: "INTERNAL", status: 500))
        #expect(outcome(502, Array("<html>Bad Gateway</html>".utf8)) == DeliveryOutcome(.transient, reason: "HTTP 502", status: 502))
        #expect(outcome(400, body(400, "INVALID_ARGUMENT", errorCode: "UNSPECIFIED_ERROR")).outcome == .transient)
    }
}
