import Foundation
import Synchronization

/// The simulator's configuration and locked state, shared by the routes; every critical section is a few
/// dictionary operations.
final class HMSSimulatorStore: Sendable {
    let configuration: HMSSimulator.Configuration
    let state: Mutex<HMSSimulatorState>

    init(configuration: HMSSimulator.Configuration) {
        self.configuration = configuration
        self.state = Mutex(HMSSimulatorState(seed: configuration.seed))
    }

    /// Counts a send request and decides what it gets: a scripted or queued injection first, else the fault plan.
    func arrive() -> (injection: HMSSimulator.Injection?, delayMilliseconds: Int) {
        self.state.withLock { state in
            state.statistics.requests += 1
            return state.faults.arrive()
        }
    }

    /// Counts a token request and returns the injection queued for it, if any.
    func arriveAtTokenEndpoint() -> HMSSimulator.Injection? {
        self.state.withLock { state in
            state.statistics.tokenRequests += 1
            return state.queuedTokenAnswers.isEmpty ? nil : state.queuedTokenAnswers.removeFirst()
        }
    }

    /// Issues a new opaque access token to the app `appID` for `lifetime` seconds.
    func issueAccessToken(appID: String, lifetime: Int, now: Double) -> String {
        self.state.withLock { state in
            // Huawei's tokens are base64 text that often holds a `/`, which its JSON writes as `\/`.
            let token = "CgB6e3x9" + String(state.faults.nextRandom(), radix: 36) + "/"
                + String(state.faults.nextRandom(), radix: 36) + String(state.faults.nextRandom(), radix: 36)
            state.accessTokens[token] = HMSAccessTokenGrant(appID: appID, expiresAt: now + Double(lifetime))
            state.statistics.tokenExchanges += 1
            return token
        }
    }

    /// The grant of `token`, also when it has expired; `nil` when it was never issued or was revoked.
    func accessToken(_ token: String) -> HMSAccessTokenGrant? {
        self.state.withLock { $0.accessTokens[token] }
    }

    /// A new request id in the form Push Kit answers with (digits: milliseconds, a sequence number, a node).
    func nextRequestID() -> String {
        self.state.withLock { state in
            state.requestSequence += 1
            let millis = UInt64(Date().timeIntervalSince1970 * 1000)
            let sequence = String(state.requestSequence % 100_000_000)
            return "\(millis)" + String(repeating: "0", count: 8 - sequence.count) + sequence + "0901"
        }
    }

    /// Counts an error answer to a send under `key` (its code, or `HTTP <status>`).
    func recordRejection(_ key: String) {
        self.state.withLock { $0.statistics.rejections[key, default: 0] += 1 }
    }

    /// Records a refused token request.
    func recordTokenRejection(_ description: String) {
        self.state.withLock { $0.statistics.tokenRejections[description, default: 0] += 1 }
    }
}
