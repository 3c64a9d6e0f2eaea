import Foundation
import Synchronization

/// The simulator's shared state behind one mutex, and its recorder behind another; every critical section is a few
/// dictionary operations.
final class FCMSimulatorStore: Sendable {
    let state: Mutex<FCMSimulatorState>
    /// The counters (the connection counters among them stay 0 here, as ``SimulatorConnectionRegistry`` keeps
    /// them) and the accepted tokens and payloads.
    let recorder: SimulatorRecorder<FCMSimulator.Statistics, FCMSimulator.Accepted>

    init(seed: UInt64, recordTokens: Bool) {
        self.state = Mutex(FCMSimulatorState(seed: seed))
        self.recorder = SimulatorRecorder(recordTokens: recordTokens)
    }

    /// Counts a send request and decides what it gets: a scripted or queued injection first, else the fault plan.
    func arrive() -> (injection: FCMSimulator.Injection?, delayMilliseconds: Int) {
        self.recorder.countRequest()
        return self.state.withLock { $0.faults.arrive() }
    }

    /// Counts a token request and returns the injection queued for it, if any.
    func arriveAtTokenEndpoint() -> FCMSimulator.Injection? {
        self.recorder.withStatistics { $0.tokenRequests += 1 }
        return self.state.withLock { state in
            state.queuedTokenAnswers.isEmpty ? nil : state.queuedTokenAnswers.removeFirst()
        }
    }

    /// Issues a new opaque access token to `clientEmail` for `lifetime` seconds.
    func issueAccessToken(clientEmail: String, projectID: String, lifetime: Int, now: Double) -> String {
        let issued = self.state.withLock { state in
            // Google's tokens start `ya29.`; the rest is opaque.
            var token = "ya29.c."
            for _ in 0..<6 {
                token += String(state.faults.nextRandom(), radix: 36)
            }
            state.accessTokens[token] = FCMAccessTokenGrant(
                clientEmail: clientEmail, projectID: projectID, expiresAt: now + Double(lifetime))
            return token
        }
        self.recorder.withStatistics { $0.tokenExchanges += 1 }
        return issued
    }

    /// The grant of `token`, also when it has expired; `nil` when it was never issued or was revoked.
    func accessToken(_ token: String) -> FCMAccessTokenGrant? {
        self.state.withLock { $0.accessTokens[token] }
    }

    /// What is known about a registration token.
    func deviceStatus(of token: String) -> FCMDeviceStatus {
        self.state.withLock { state in
            if state.invalidTokens.contains(token) { return .invalid }
            if state.unregistered.contains(token) { return .unregistered }
            if state.senderMismatch.contains(token) { return .otherSender }
            return .active
        }
    }

    /// A new message id in the form FCM answers with (`0:<microseconds>%<16 hex digits>`).
    func nextMessageID() -> String {
        self.state.withLock { state in
            state.messageSequence += 1
            let micros = UInt64(Date().timeIntervalSince1970 * 1_000_000) &+ state.messageSequence
            let suffix = String(state.faults.nextRandom(), radix: 16)
            return "0:\(micros)%\(String(repeating: "0", count: 16 - suffix.count))\(suffix)"
        }
    }

    /// Records a refused token request.
    func recordTokenRejection(error: String) {
        self.recorder.withStatistics { $0.tokenRejections[error, default: 0] += 1 }
    }
}
