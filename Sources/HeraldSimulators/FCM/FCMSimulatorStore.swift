import Foundation
import Synchronization

/// The simulator's shared state behind one mutex; every critical section is a few dictionary operations.
final class FCMSimulatorStore: Sendable {
    let state: Mutex<FCMSimulatorState>
    private let recordTokens: Bool

    init(seed: UInt64, recordTokens: Bool) {
        self.state = Mutex(FCMSimulatorState(seed: seed))
        self.recordTokens = recordTokens
    }

    /// Counts a send request and decides what it gets: a scripted or queued injection first, else the fault plan.
    func arrive() -> (injection: FCMSimulator.Injection?, delayMilliseconds: Int) {
        self.state.withLock { state in
            state.statistics.requests += 1
            if let scripted = state.scripted.removeValue(forKey: state.statistics.requests) {
                return (scripted, 0)
            }
            if !state.queued.isEmpty {
                return (state.queued.removeFirst(), 0)
            }
            if state.faults.isEmpty {
                return (nil, 0)
            }
            return state.faults.draw(using: &state.generator)
        }
    }

    /// Counts a token request and returns the injection queued for it, if any.
    func arriveAtTokenEndpoint() -> FCMSimulator.Injection? {
        self.state.withLock { state in
            state.statistics.tokenRequests += 1
            return state.queuedTokenAnswers.isEmpty ? nil : state.queuedTokenAnswers.removeFirst()
        }
    }

    /// Issues a new opaque access token to `clientEmail` for `lifetime` seconds.
    func issueAccessToken(clientEmail: String, projectID: String, lifetime: Int, now: Double) -> String {
        self.state.withLock { state in
            // Google's tokens start `ya29.`; the rest is opaque.
            var token = "ya29.c."
            for _ in 0..<6 {
                token += String(state.generator.next(), radix: 36)
            }
            state.accessTokens[token] = FCMAccessTokenGrant(
                clientEmail: clientEmail, projectID: projectID, expiresAt: now + Double(lifetime))
            state.statistics.tokenExchanges += 1
            return token
        }
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
            let suffix = String(state.generator.next(), radix: 16)
            return "0:\(micros)%\(String(repeating: "0", count: 16 - suffix.count))\(suffix)"
        }
    }

    /// Records an accepted send.
    func recordAccepted(token: String?, record: FCMSimulator.Accepted?) {
        self.state.withLock { state in
            state.statistics.accepted += 1
            if self.recordTokens, let token {
                state.acceptedTokens.append(token)
            }
            if let record {
                state.accepted.append(record)
            }
        }
    }

    /// Records an error answer to a send.
    func recordRejection(reason: String) {
        self.state.withLock { $0.statistics.rejections[reason, default: 0] += 1 }
    }

    /// Records a refused token request.
    func recordTokenRejection(error: String) {
        self.state.withLock { $0.statistics.tokenRejections[error, default: 0] += 1 }
    }

    /// Applies `body` to the statistics.
    func updateStatistics(_ body: (inout FCMSimulator.Statistics) -> Void) {
        self.state.withLock { body(&$0.statistics) }
    }
}
