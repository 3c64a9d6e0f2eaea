import Testing

@testable import HeraldSimulators

/// What `SimulatorRecorder` counts and keeps, and that it does so exactly under concurrent recording.
@Suite struct SimulatorRecorderTests {
    /// The smallest statistics a recorder can keep, counting rejections by HTTP status.
    struct Counters: SimulatorRequestStatistics {
        var requests = 0
        var accepted = 0
        var rejections: [Int: Int] = [:]
        var extra = 0
    }

    @Test func countsRequestsAcceptancesAndRejectionsByKey() {
        let recorder = SimulatorRecorder<Counters, String>(recordTokens: true)
        for _ in 0..<4 {
            recorder.countRequest()
        }
        recorder.recordAccepted(token: "a", record: nil)
        recorder.recordRejection(503)
        recorder.recordRejection(503)
        recorder.recordRejection(400)
        recorder.withStatistics { $0.extra += 2 }
        #expect(recorder.requestCount == 4)
        #expect(recorder.acceptedCount == 1)
        let statistics = recorder.statistics
        #expect(statistics.rejections == [503: 2, 400: 1])
        #expect(statistics.extra == 2)
    }

    @Test func keepsTokensAndRecordsInOrderWhenThereAreAny() {
        let recorder = SimulatorRecorder<Counters, String>(recordTokens: true)
        recorder.recordAccepted(token: "t1", record: "r1")
        recorder.recordAccepted(token: nil, record: "r2")
        recorder.recordAccepted(token: "t1", record: nil)
        #expect(recorder.acceptedTokens() == ["t1", "t1"])
        #expect(recorder.accepted() == ["r1", "r2"])
        #expect(recorder.acceptedCount == 3)
    }

    @Test func keepsNoTokensWhenTokenRecordingIsOff() {
        let recorder = SimulatorRecorder<Counters, String>(recordTokens: false)
        recorder.recordAccepted(token: "t1", record: "r1")
        #expect(recorder.acceptedTokens().isEmpty)
        #expect(recorder.accepted() == ["r1"])
    }

    @Test func clearingRecordsKeepsTheCounters() {
        let recorder = SimulatorRecorder<Counters, String>(recordTokens: true)
        recorder.countRequest()
        recorder.recordAccepted(token: "t1", record: "r1")
        recorder.clearRecords()
        #expect(recorder.acceptedTokens().isEmpty)
        #expect(recorder.accepted().isEmpty)
        #expect(recorder.requestCount == 1)
        #expect(recorder.acceptedCount == 1)
    }

    @Test func concurrentRecordingLosesNothing() async {
        let recorder = SimulatorRecorder<Counters, Int>(recordTokens: true)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<250 {
                        recorder.countRequest()
                        if index.isMultiple(of: 2) {
                            recorder.recordAccepted(token: "\(task)", record: task * 1000 + index)
                        } else {
                            recorder.recordRejection(429)
                        }
                    }
                }
            }
        }
        #expect(recorder.requestCount == 2000)
        #expect(recorder.acceptedCount == 1000)
        #expect(recorder.statistics.rejections == [429: 1000])
        #expect(recorder.acceptedTokens().count == 1000)
        #expect(Set(recorder.accepted()).count == 1000)
    }
}
