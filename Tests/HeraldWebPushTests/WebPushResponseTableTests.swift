import HeraldCore
import HeraldWebPush
import Testing

/// Every Web Push answer class (pushd-api.md §11.2).
@Suite struct WebPushResponseTableTests {
    @Test(arguments: [
        (200, DeliveryOutcome.Class.delivered), (201, .delivered), (202, .delivered),
        (404, .deadToken), (410, .deadToken),
        (413, .messageFailure),
        (401, .subscriberFailure), (403, .subscriberFailure),
        (400, .subscriberFailure), (405, .subscriberFailure), (301, .subscriberFailure),
        (406, .transient), (429, .transient), (500, .transient), (502, .transient), (503, .transient),
    ])
    func classes(status: Int, expected: DeliveryOutcome.Class) {
        let outcome = WebPushResponseTable.outcome(status: status)
        #expect(outcome.outcome == expected)
        if expected != .delivered { #expect(outcome.status == status) }
    }

    @Test func retryAfterIsHonoured() {
        #expect(WebPushResponseTable.outcome(status: 429, retryAfter: "30").retryAfter == .seconds(30))
        #expect(WebPushResponseTable.outcome(status: 503, retryAfter: "7").retryAfter == .seconds(7))
        #expect(WebPushResponseTable.outcome(status: 429).retryAfter == nil)
    }

    @Test func servicesOwnReasonsAreKept() {
        let apple = WebPushResponseTable.outcome(status: 403, body: Array(#"{"reason":"BadJwtToken"}"#.utf8))
        #expect(apple.reason == "HTTP 403 BadJwtToken")
        let mozilla = WebPushResponseTable.outcome(
            status: 410, body: Array(#"{"code":410,"errno":103,"error":"Gone","message":"x"}"#.utf8))
        #expect(mozilla.reason == "HTTP 410 errno 103")
        let fcm = WebPushResponseTable.outcome(status: 404, body: Array(#"{"error":{"code":404,"status":"NOT_FOUND"}}"#.utf8))
        #expect(fcm.reason == "HTTP 404 NOT_FOUND")
        #expect(WebPushResponseTable.outcome(status: 500, body: Array("<html>".utf8)).reason == "HTTP 500")
        #expect(WebPushResponseTable.outcome(status: 413).reason == "PayloadTooLarge")
    }

    @Test func transportErrorsAreTransient() {
        struct Refused: Error, CustomStringConvertible { var description: String { "connect(2) failed: Connection refused" } }
        let outcome = WebPushResponseTable.outcome(for: Refused())
        #expect(outcome.outcome == .transient)
        #expect(outcome.reason == "connection refused")
    }
}
