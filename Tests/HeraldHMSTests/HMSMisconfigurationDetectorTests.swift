import HeraldHMS
import Testing

/// When `80300007` means dead tokens and when a misconfigured provider: the state machine alone, times in
/// milliseconds.
@Suite struct HMSMisconfigurationDetectorTests {
    @Test func oneBatchOfInvalidTokensIsDead() {
        var detector = HMSMisconfigurationDetector()
        #expect(detector.recordAllTokensInvalid(now: 0) == .deadTokens)
        #expect(!detector.isMisconfigured)
    }

    @Test func theSameAnswerToEveryBatchOfTheLastMinuteIsAMisconfiguration() {
        var detector = HMSMisconfigurationDetector()
        #expect(detector.recordAllTokensInvalid(now: 0) == .deadTokens)
        #expect(detector.recordAllTokensInvalid(now: 20_000) == .misconfigured(newly: true))
        #expect(detector.recordAllTokensInvalid(now: 40_000) == .misconfigured(newly: false), "logged once")
        #expect(detector.recordAllTokensInvalid(now: 41_000) == .misconfigured(newly: false))
        #expect(detector.isMisconfigured)
    }

    @Test func anAcceptedBatchWithinTheMinuteKeepsInvalidTokensDead() {
        var detector = HMSMisconfigurationDetector()
        detector.recordAccepted(now: 0)
        #expect(detector.recordAllTokensInvalid(now: 10_000) == .deadTokens)
        #expect(detector.recordAllTokensInvalid(now: 20_000) == .deadTokens)
        #expect(detector.recordAllTokensInvalid(now: 59_000) == .deadTokens)
        // The accepted batch is over a minute old, and every batch since got the same answer.
        #expect(detector.recordAllTokensInvalid(now: 61_000) == .misconfigured(newly: true))
    }

    @Test func invalidBatchesFurtherApartThanAMinuteAreEachDead() {
        var detector = HMSMisconfigurationDetector()
        #expect(detector.recordAllTokensInvalid(now: 0) == .deadTokens)
        #expect(detector.recordAllTokensInvalid(now: 61_000) == .deadTokens)
        #expect(detector.recordAllTokensInvalid(now: 122_001) == .deadTokens)
    }

    @Test func anAcceptedBatchEndsAMisconfiguration() {
        var detector = HMSMisconfigurationDetector()
        _ = detector.recordAllTokensInvalid(now: 0)
        #expect(detector.recordAllTokensInvalid(now: 1_000) == .misconfigured(newly: true))
        detector.recordAccepted(now: 2_000)
        #expect(!detector.isMisconfigured)
        #expect(detector.recordAllTokensInvalid(now: 3_000) == .deadTokens)
        // Once the accepted batch is a minute old, the pattern is recognised, and logged, again.
        #expect(detector.recordAllTokensInvalid(now: 62_001) == .misconfigured(newly: true))
    }

    @Test func theWindowAndTheNumberOfBatchesCanBeChosen() {
        var detector = HMSMisconfigurationDetector(window: 1_000, minimumBatches: 3)
        #expect(detector.recordAllTokensInvalid(now: 0) == .deadTokens)
        #expect(detector.recordAllTokensInvalid(now: 500) == .deadTokens)
        #expect(detector.recordAllTokensInvalid(now: 900) == .misconfigured(newly: true))
        #expect(detector.recordAllTokensInvalid(now: 2_500) == .deadTokens, "the first of the last three is over the window")
        #expect(detector.recentInvalid == [500, 900, 2_500])
    }
}
