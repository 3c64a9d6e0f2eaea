extension DeliveryContent {
    /// The publish (or raw send) the content belongs to, if it was given one when accepted.
    public var publishID: String? {
        switch self {
        case .event(let event): event.publishID
        case .prepared(let payload): payload.publishID
        }
    }

    /// A fresh publish id: 128 random bits as 32 lower-case hex digits.
    ///
    /// Random rather than the job's row id, so that it is known before the publish is stored, is
    /// stored with the content every retry and dead letter copies, and never repeats across
    /// databases or nodes.
    public static func newPublishID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
