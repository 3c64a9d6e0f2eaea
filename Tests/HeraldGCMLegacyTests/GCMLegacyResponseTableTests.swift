import HeraldCore
import HeraldGCMLegacy
import Testing

/// Splitting legacy GCM answers into per-token outcomes (providers.md §5.2).
@Suite struct GCMLegacyResponseTableTests {
    func results(_ status: Int, _ body: String, count: Int, retryAfter: String? = nil) -> [GCMLegacyResult] {
        GCMLegacyResponseTable.results(status: status, body: Array(body.utf8), retryAfter: retryAfter, count: count)
    }

    @Test func resultsFollowTheRegistrationIDsByIndex() {
        let body = #"""
            {"multicast_id":1,"success":2,"failure":3,"canonical_ids":1,"results":[{"message_id":"0:1%a"},{"error":"NotRegistered"},
            {"message_id":"0:2%b","registration_id":"canonical"},{"error":"Unavailable"},{"error":"MismatchSenderId"}]}
            """#
        let split = results(200, body, count: 5, retryAfter: "4")
        #expect(split.map(\.outcome.outcome) == [.delivered, .deadToken, .delivered, .transient, .subscriberFailure])
        #expect(split.map(\.canonicalRegistrationID) == [nil, nil, "canonical", nil, nil])
        #expect(split[3].outcome.retryAfter == .seconds(4))
    }

    @Test(arguments: [
        ("NotRegistered", DeliveryOutcome.Class.deadToken), ("InvalidRegistration", .deadToken), ("MissingRegistration", .deadToken),
        ("MismatchSenderId", .subscriberFailure), ("InvalidPackageName", .subscriberFailure),
        ("Unavailable", .transient), ("InternalServerError", .transient), ("DeviceMessageRateExceeded", .transient),
        ("TopicsMessageRateExceeded", .transient), ("MessageTooBig", .messageFailure), ("InvalidDataKey", .messageFailure),
        ("InvalidTtl", .messageFailure), ("InvalidParameters", .messageFailure), ("InvalidApnsCredential", .configurationFailure),
        ("SomethingNew", .messageFailure),
    ])
    func errorCodes(error: String, expected: DeliveryOutcome.Class) {
        let outcome = GCMLegacyResponseTable.outcome(error: error, retryAfter: nil)
        #expect(outcome.outcome == expected)
        #expect(outcome.reason == error)
    }

    @Test func httpFailuresApplyToEveryToken() {
        #expect(results(401, "<HTML>Unauthorized</HTML>", count: 3).map(\.outcome.outcome) == Array(repeating: .configurationFailure, count: 3))
        let bad = results(400, "JSON_PARSING_ERROR: Unexpected character\nmore", count: 2)
        #expect(bad.map(\.outcome.outcome) == [.messageFailure, .messageFailure])
        #expect(bad[0].outcome.reason == "JSON_PARSING_ERROR: Unexpected character")
        let down = results(503, "", count: 2, retryAfter: "30")
        #expect(down.map(\.outcome.outcome) == [.transient, .transient])
        #expect(down[1].outcome.retryAfter == .seconds(30))
        #expect(results(404, "", count: 1)[0].outcome.outcome == .messageFailure)
        #expect(results(301, "", count: 1)[0].outcome.outcome == .configurationFailure)
    }

    @Test func aResultsDocumentOfTheWrongShapeIsTransient() {
        #expect(results(200, #"{"results":[{"message_id":"1"}]}"#, count: 2).map(\.outcome.outcome) == [.transient, .transient])
        #expect(results(200, "not json", count: 1)[0].outcome.reason == "InvalidResponse")
        #expect(results(200, #"{"results":[{}]}"#, count: 1)[0].outcome.outcome == .transient)
    }
}
