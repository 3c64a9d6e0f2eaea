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

    var faults = WebPushSimulator.Faults.none
    /// What the next requests get, in order, before the random fault plan applies.
    var queued: [WebPushSimulator.Injection] = []
    var generator: SeededRandomNumberGenerator

    init(seed: UInt64) {
        self.generator = SeededRandomNumberGenerator(seed: seed)
    }
}
