/// Everything a ``WebPushSimulator`` shares between requests, guarded by its mutex.
struct WebPushSimulatorState {
    /// A subscription the simulator issued, with the keys to decrypt what is sent to it.
    struct Entry {
        var subscription: WebPushSimulator.Subscription
        var keys: WebPushUserAgentKeys
        /// The `applicationServerKey` it was made with (65 bytes): VAPID with exactly this key is required.
        var applicationServerKey: [UInt8]?
        var expired = false
    }

    var subscriptions: [String: Entry] = [:]
    var requests = 0
    var acceptedCount = 0
    var accepted: [WebPushSimulator.Accepted] = []
    var rejections: [WebPushSimulator.Rejection] = []
    var nextMessage = 0

    /// What each arriving push request gets: queued injections, then the random fault plan.
    var faults: FaultSchedule<WebPushSimulator.Faults>

    init(seed: UInt64) {
        self.faults = FaultSchedule(seed: seed)
    }
}
