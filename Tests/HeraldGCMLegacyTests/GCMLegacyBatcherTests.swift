import HeraldCore
import HeraldGCMLegacy
import Synchronization
import Testing

/// How concurrent sends are gathered into batches and answered one by one.
@Suite struct GCMLegacyBatcherTests {
    /// Records the batches it is asked to send and answers each token with its own reason.
    final class Recorder: Sendable {
        let batches = Mutex<[[String]]>([])

        func flush(_ message: GCMLegacyMessage, _ targets: [DeliveryTarget]) async -> [GCMLegacyResult] {
            batches.withLock { $0.append(targets.map(\.token)) }
            return targets.map { GCMLegacyResult(DeliveryOutcome(.delivered, reason: $0.token)) }
        }
    }

    func send(_ batcher: GCMLegacyBatcher, _ message: GCMLegacyMessage, _ tokens: [String]) async -> [String: String?] {
        await withTaskGroup(of: (String, String?).self) { group in
            for token in tokens {
                group.addTask { (token, await batcher.submit(message, to: DeliveryTarget(subscriberID: .random(), token: token)).outcome.reason) }
            }
            var reasons: [String: String?] = [:]
            for await (token, reason) in group { reasons[token] = reason }
            return reasons
        }
    }

    @Test func fullBatchesGoAtOnceAndTheRestAfterTheDelay() async {
        let recorder = Recorder()
        let batcher = GCMLegacyBatcher(batchSize: 4, batchDelay: .milliseconds(300)) { await recorder.flush($0, $1) }
        let tokens = (0..<10).map { "t\($0)" }
        let reasons = await send(batcher, GCMLegacyMessage(members: "\"data\":{}"), tokens)
        // Every send got the result of its own token.
        #expect(reasons.allSatisfy { $0.key == $0.value })
        let sizes = recorder.batches.withLock { $0.map(\.count) }
        #expect(sizes.sorted() == [2, 4, 4])
    }

    @Test func differentMessagesNeverShareABatch() async {
        let recorder = Recorder()
        let batcher = GCMLegacyBatcher(batchSize: 100, batchDelay: .milliseconds(100)) { await recorder.flush($0, $1) }
        let first = GCMLegacyMessage(members: "\"data\":{}")
        let second = GCMLegacyMessage(members: "\"data\":{}")
        async let a = send(batcher, first, ["a1", "a2", "a3"])
        async let b = send(batcher, second, ["b1", "b2"])
        _ = await (a, b)
        let batches = recorder.batches.withLock { $0.map { Set($0) } }
        #expect(Set(batches) == [["a1", "a2", "a3"], ["b1", "b2"]])
    }

    @Test func aBatchOfOneIsSentAlone() async {
        let recorder = Recorder()
        let batcher = GCMLegacyBatcher(batchSize: 1, batchDelay: .seconds(10)) { await recorder.flush($0, $1) }
        let reasons = await send(batcher, GCMLegacyMessage(members: "\"data\":{}"), ["x", "y"])
        #expect(reasons == ["x": "x", "y": "y"])
        #expect(recorder.batches.withLock { $0.count } == 2)
    }

    @Test func aShortAnswerStillAnswersEverySend() async {
        let batcher = GCMLegacyBatcher(batchSize: 3, batchDelay: .milliseconds(50)) { _, _ in [GCMLegacyResult(.delivered)] }
        let message = GCMLegacyMessage(members: "\"data\":{}")
        let outcomes = await withTaskGroup(of: DeliveryOutcome.Class.self) { group in
            for token in ["a", "b", "c"] {
                group.addTask { await batcher.submit(message, to: DeliveryTarget(subscriberID: .random(), token: token)).outcome.outcome }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.sorted { $0.rawValue < $1.rawValue } == [.delivered, .transient, .transient])
    }

    @Test func registrationIDsAreValidatedLoosely() async throws {
        try await GCMLegacyFixture.with { fixture in
            let provider = try await fixture.provider()
            #expect(provider.normalizeToken(TokenInput(token: .string("APA91bH:abc-def_ghi")))?.token == "APA91bH:abc-def_ghi")
            #expect(provider.normalizeToken(TokenInput(token: .string(""))) == nil)
            #expect(provider.normalizeToken(TokenInput(token: .string("a b"))) == nil)
            #expect(provider.normalizeToken(TokenInput(token: .string(String(repeating: "x", count: 4097)))) == nil)
            await provider.shutdown()
        }
    }
}
