import HeraldCore
import HeraldWNS
import Testing

/// Every MPNS answer class of pushd-api.md §11.2 and providers.md §5.1.
@Suite struct MPNSResponseTableTests {
    func outcome(_ status: Int, _ notification: String? = nil, _ subscription: String? = nil, _ device: String? = nil, retryAfter: String? = nil)
        -> DeliveryOutcome
    {
        MPNSResponseTable.outcome(
            status: status, notificationStatus: notification, subscriptionStatus: subscription, deviceConnectionStatus: device,
            retryAfter: retryAfter)
    }

    @Test(arguments: [
        (200, "Received", "Active", "Connected", DeliveryOutcome.Class.delivered),
        (200, "Suppressed", "Active", "Connected", .delivered),
        (200, "QueueFull", "Active", "Connected", .transient),
        (200, "Dropped", "Expired", "Connected", .deadToken),
        (404, "Dropped", "Expired", "Disconnected", .deadToken),
        (404, nil, nil, nil, .deadToken),
        (410, nil, nil, nil, .deadToken),
        (406, "Dropped", "Active", "Connected", .transient),
        (412, "Dropped", "Active", "Inactive", .transient),
        (503, nil, nil, nil, .transient),
        (500, nil, nil, nil, .transient),
        (400, nil, nil, nil, .subscriberFailure),
        (401, nil, nil, nil, .subscriberFailure),
        (405, nil, nil, nil, .subscriberFailure),
    ] as [(Int, String?, String?, String?, DeliveryOutcome.Class)])
    func classes(status: Int, notification: String?, subscription: String?, device: String?, expected: DeliveryOutcome.Class) {
        #expect(outcome(status, notification, subscription, device).outcome == expected)
    }

    @Test func inactiveDevicesWaitAnHourUnlessTold() {
        #expect(outcome(412, "Dropped", "Active", "Inactive").retryAfter == .seconds(3600))
        #expect(outcome(412, retryAfter: "120").retryAfter == .seconds(120))
        #expect(outcome(503, retryAfter: "5").retryAfter == .seconds(5))
    }

    @Test func theStatusHeadersAreTheReason() {
        #expect(outcome(404, "Dropped", "Expired", "Disconnected").reason == "Dropped/Expired/Disconnected")
        #expect(outcome(400).reason == "HTTP 400")
    }
}
