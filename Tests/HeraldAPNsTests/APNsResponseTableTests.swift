import HeraldAPNs
import HeraldCore
import Testing

/// Every APNs answer class of pushd-api.md §11.2.
@Suite struct APNsResponseTableTests {
    func outcome(_ status: Int, _ body: String = "", retryAfter: String? = nil) -> DeliveryOutcome {
        APNsResponseTable.outcome(status: status, body: Array(body.utf8), retryAfter: retryAfter)
    }

    @Test(arguments: [
        (200, "", DeliveryOutcome.Class.delivered),
        (410, #"{"reason":"Unregistered","timestamp":1454402113000}"#, .deadToken),
        (410, #"{"reason":"ExpiredToken"}"#, .deadToken),
        (400, #"{"reason":"BadDeviceToken"}"#, .deadToken),
        (400, #"{"reason":"DeviceTokenNotForTopic"}"#, .subscriberFailure),
        (400, #"{"reason":"BadCollapseId"}"#, .messageFailure),
        (413, #"{"reason":"PayloadTooLarge"}"#, .messageFailure),
        (404, #"{"reason":"BadPath"}"#, .messageFailure),
        (403, #"{"reason":"InvalidProviderToken"}"#, .configurationFailure),
        (403, #"{"reason":"ExpiredProviderToken"}"#, .configurationFailure),
        (429, #"{"reason":"TooManyRequests"}"#, .transient),
        (429, #"{"reason":"TooManyProviderTokenUpdates"}"#, .transient),
        (500, #"{"reason":"InternalServerError"}"#, .transient),
        (503, #"{"reason":"ServiceUnavailable"}"#, .transient),
        (503, "<html>not json</html>", .transient),
        (400, #"{"reason":"SomethingNew"}"#, .messageFailure),
    ])
    func classes(status: Int, body: String, expected: DeliveryOutcome.Class) {
        #expect(outcome(status, body).outcome == expected)
    }

    @Test func unregisteredCarriesTheTimestamp() {
        let result = outcome(410, #"{"reason":"Unregistered","timestamp":1454402113000}"#)
        #expect(result.invalidSince == 1_454_402_113_000)
        #expect(result.reason == "Unregistered")
        #expect(result.status == 410)
        #expect(outcome(410, "").invalidSince == nil)
    }

    @Test func retryAfterIsHonoured() {
        #expect(outcome(429, #"{"reason":"TooManyRequests"}"#, retryAfter: "2").retryAfter == .seconds(2))
        #expect(outcome(429, #"{"reason":"TooManyProviderTokenUpdates"}"#).retryAfter == .seconds(1200))
    }
}
