extension DeliveryContent {
    /// The publish (or raw send) the content belongs to, if it was given one when accepted.
    public var publishID: String? {
        switch self {
        case .event(let event): event.publishID
        case .prepared(let payload): payload.publishID
        }
    }

    /// A fresh publish id: 32 lower-case hex digits, the Unix time in milliseconds (48 bits) then
    /// 80 random bits, as a UUIDv7 lays them out.
    ///
    /// Random rather than the job's row id, so that it is known before the publish is stored, is
    /// stored with the content every retry and dead letter copies, and never repeats across
    /// databases or nodes. Time first, so that ids made one after the other sort together: the
    /// receipts' primary key then grows at its end, like a row id, instead of touching a random
    /// page of its index on every publish (which more than halved the publish rate on SQLite).
    public static func newPublishID(nowMillis: Int64 = WallClock.system.nowMillis()) -> String {
        var generator = SystemRandomNumberGenerator()
        let time = UInt64(max(0, nowMillis)) & 0xFFFF_FFFF_FFFF
        let random = generator.next() as UInt64
        let high = time << 16 | random >> 48
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
