import Synchronization

/// `apns-id` values: UUID-shaped (version 4 layout, lower-case) and unique per provider.
///
/// A random 122-bit UUID per request costs a `getrandom` call and several string allocations;
/// APNs only needs the id to be a well-formed UUID that identifies the request. So the upper 64
/// bits are drawn once per provider and the lower 64 bits count requests, offset by a random start:
/// ids never repeat within a provider (2^62 requests) and collide across providers only if two
/// draw the same 60 random bits.
final class APNsRequestIDGenerator: Sendable {
    private let high: UInt64
    private let start: UInt64
    private let counter = Atomic<UInt64>(0)

    /// Creates a generator with a fresh random prefix.
    init() {
        var generator = SystemRandomNumberGenerator()
        // Version 4 in bits 12–15 of the third group.
        self.high = (generator.next() & ~0xF000) | 0x4000
        self.start = generator.next()
    }

    /// The next id, such as `1b4e28ba-2fa1-41d2-883f-0016d3cca427`.
    func next() -> String {
        let count = self.counter.wrappingAdd(1, ordering: .relaxed).oldValue
        // RFC 9562 variant (10xx) in the top bits of the fourth group.
        let low = ((self.start &+ count) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            func put(_ value: UInt64, digits: Int) {
                var shift = (digits - 1) * 4
                while shift >= 0 {
                    let digit = UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & 0xF)
                    buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    index += 1
                    shift -= 4
                }
            }
            func dash() {
                buffer[index] = UInt8(ascii: "-")
                index += 1
            }
            put(self.high >> 32, digits: 8)
            dash()
            put((self.high >> 16) & 0xFFFF, digits: 4)
            dash()
            put(self.high & 0xFFFF, digits: 4)
            dash()
            put(low >> 48, digits: 4)
            dash()
            put(low & 0xFFFF_FFFF_FFFF, digits: 12)
            return index
        }
    }
}
