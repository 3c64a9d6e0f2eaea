import HeraldCore
import HeraldWNS
import Testing

/// Every WNS answer class of pushd-api.md §11.2.
@Suite struct WNSResponseTableTests {
    func outcome(_ status: Int, _ wnsStatus: String? = nil, retryAfter: String? = nil, continueAfter: String? = nil) -> DeliveryOutcome {
        WNSResponseTable.outcome(
            status: status, notificationStatus: wnsStatus, errorDescription: nil, retryAfter: retryAfter, continueAfter: continueAfter)
    }

    @Test(arguments: [
        (200, "received", DeliveryOutcome.Class.delivered),
        (200, nil, .delivered),
        (200, "dropped", .delivered),
        (200, "channelthrottled", .transient),
        (404, nil, .deadToken),
        (410, "dropped", .deadToken),
        (401, nil, .configurationFailure),
        (403, nil, .subscriberFailure),
        (400, nil, .messageFailure),
        (405, nil, .messageFailure),
        (413, nil, .messageFailure),
        (406, "channelthrottled", .transient),
        (429, nil, .transient),
        (500, nil, .transient),
        (503, nil, .transient),
        (502, nil, .transient),
        (302, nil, .messageFailure),
    ] as [(Int, String?, DeliveryOutcome.Class)])
    func classes(status: Int, wnsStatus: String?, expected: DeliveryOutcome.Class) {
        let result = outcome(status, wnsStatus)
        #expect(result.outcome == expected)
        #expect(result.status == status)
    }

    @Test func retryAfterAndContinueAfterAreHonoured() {
        #expect(outcome(406, retryAfter: "60").retryAfter == .seconds(60))
        #expect(outcome(503, retryAfter: "7").retryAfter == .seconds(7))
        #expect(outcome(200, "channelthrottled", continueAfter: "30").retryAfter == .seconds(30))
        #expect(outcome(500).retryAfter == nil)
    }

    @Test func theErrorDescriptionIsTheReason() {
        let result = WNSResponseTable.outcome(
            status: 410, notificationStatus: "dropped", errorDescription: "The channel expired", retryAfter: nil)
        #expect(result.reason == "The channel expired")
        #expect(outcome(404).reason == "HTTP 404")
        #expect(outcome(200, "dropped").reason == "dropped")
    }
}
