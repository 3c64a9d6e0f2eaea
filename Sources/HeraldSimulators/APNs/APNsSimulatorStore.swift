import Foundation
import Synchronization

/// The simulator's shared state behind one mutex, and its recorder behind another; every critical section is a few
/// dictionary operations, so each lock is held for well under a microsecond even on the benchmark's hot path.
final class APNsSimulatorStore: Sendable {
    let state: Mutex<APNsSimulatorState>
    /// The counters (the connection counters among them stay 0 here, as ``SimulatorConnectionRegistry`` keeps
    /// them) and the accepted tokens and payloads.
    let recorder: SimulatorRecorder<APNsSimulator.Statistics, APNsSimulator.Accepted>

    init(seed: UInt64, recordTokens: Bool) {
        self.state = Mutex(APNsSimulatorState(seed: seed))
        self.recorder = SimulatorRecorder(recordTokens: recordTokens)
    }

    /// Counts a request and decides what it gets: a scripted or queued injection first, else the fault plan.
    func arrive() -> (injection: APNsSimulator.Injection?, delayMilliseconds: Int) {
        self.recorder.countRequest()
        return self.state.withLock { $0.faults.arrive() }
    }

    /// What is known about `token` (already lowercased).
    func deviceStatus(of token: String) -> APNsDeviceStatus {
        self.state.withLock { state in
            if state.badTokens.contains(token) { return .bad }
            if let timestamp = state.unregistered[token] { return .unregistered(timestampMillis: timestamp) }
            return .active(topics: state.tokenTopics[token])
        }
    }

    /// Admits `token` as one of the team's provider tokens, or refuses it when it would be one distinct token too
    /// many within `window` seconds. Refused tokens are not remembered, so the tokens already in use keep working.
    func admitProviderToken(_ token: String, now: Double, limit: Int?, window: Double) -> Bool {
        guard let limit else { return true }
        return self.state.withLock { state in
            if state.providerTokens.last?.token == token || state.providerTokens.contains(where: { $0.token == token })
            {
                return true
            }
            state.providerTokens.removeAll { now - $0.firstSeen >= window }
            guard state.providerTokens.count < limit else { return false }
            state.providerTokens.append((token, now))
            return true
        }
    }

    // MARK: Broadcast channels

    /// Creates a channel of `bundleID` under a fresh random id, and returns the id; `nil` when the bundle id already
    /// has `limit` channels (no limit when `nil`).
    func createChannel(bundleID: String, policy: APNsSimulator.MessageStoragePolicy, limit: Int?) -> String? {
        self.state.withLock { state in
            if let limit, state.channels.values.lazy.filter({ $0.channel.bundleID == bundleID }).count >= limit {
                return nil
            }
            // System randomness rather than the seeded generator: two simulators with the same seed (a sandbox and
            // a production one) must not hand out the same ids, as Apple's two environments do not.
            var id = Self.channelID(UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
            while state.channels[id] != nil {
                id = Self.channelID(UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
            }
            state.channelSequence += 1
            state.channels[id] = APNsChannelEntry(
                channel: APNsSimulator.Channel(id: id, bundleID: bundleID, messageStoragePolicy: policy),
                sequence: state.channelSequence
            )
            return id
        }
    }

    /// The channel `id` of `bundleID`, if it exists.
    func channel(_ id: String, of bundleID: String) -> APNsSimulator.Channel? {
        self.state.withLock { state in
            guard let entry = state.channels[id], entry.channel.bundleID == bundleID else { return nil }
            return entry.channel
        }
    }

    /// Deletes the channel `id` when it belongs to `bundleID` (to any bundle id when `nil`); whether it existed.
    func deleteChannel(_ id: String, of bundleID: String?) -> Bool {
        self.state.withLock { state in
            guard let owner = state.channels[id]?.channel.bundleID, bundleID == nil || owner == bundleID else {
                return false
            }
            state.channels.removeValue(forKey: id)
            return true
        }
    }

    /// The channels of `bundleID`, oldest first.
    func channels(of bundleID: String) -> [APNsSimulator.Channel] {
        self.state.withLock { state in
            state.channels.values.filter { $0.channel.bundleID == bundleID }.sorted { $0.sequence < $1.sequence }
                .map(\.channel)
        }
    }

    /// Keeps an accepted broadcast for ``APNsSimulator/acceptedBroadcasts()``.
    func recordBroadcast(_ broadcast: APNsSimulator.AcceptedBroadcast) {
        self.state.withLock { $0.acceptedBroadcasts.append(broadcast) }
    }

    /// A channel id made of 128 random bits, in standard base64 with padding, like Apple's
    /// (`dHN0LXNyY2gtY2hubA==`; clients must not assume a length).
    static func channelID(_ high: UInt64, _ low: UInt64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for word in [high, low] {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> shift))
            }
        }
        return Data(bytes).base64EncodedString()
    }
}
