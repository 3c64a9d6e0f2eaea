extension MPNSSimulator {
    /// Counters of what an ``MPNSSimulator`` received and answered.
    public struct Statistics: Sendable, Equatable {
        /// Notification requests, whatever their answer.
        public var requests = 0
        /// Notifications answered `200 Received`.
        public var accepted = 0
        /// Answers by HTTP status other than `200 Received`.
        public var rejections: [Int: Int] = [:]
    }
}

// Kept by the store's `SimulatorRecorder`, rejections by HTTP status.
extension MPNSSimulator.Statistics: SimulatorRequestStatistics {}
