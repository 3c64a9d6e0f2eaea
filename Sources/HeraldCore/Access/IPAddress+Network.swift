extension IPAddress {
    /// The first address of the block of `prefixLength` leading bits this address is in: `2001:db8:1:2::`
    /// for `2001:db8:1:2:a:b:c:d` and 64, `10.1.0.0` for `10.1.2.3` and 16.
    ///
    /// - Parameter prefixLength: clamped to 0...32 for IPv4 and 0...128 for IPv6.
    public func network(prefixLength: Int) -> IPAddress {
        switch storage {
        case .v4(let value):
            let bits = UInt32(min(max(prefixLength, 0), 32))
            let mask: UInt32 = bits == 0 ? 0 : ~0 << (32 - bits)
            return IPAddress(storage: .v4(value & mask))
        case .v6(let high, let low):
            let bits = UInt64(min(max(prefixLength, 0), 128))
            let highMask: UInt64 = bits >= 64 ? ~0 : (bits == 0 ? 0 : ~0 << (64 - bits))
            let lowMask: UInt64 = bits <= 64 ? 0 : (bits == 128 ? ~0 : ~0 << (128 - bits))
            return IPAddress(storage: .v6(high: high & highMask, low: low & lowMask))
        }
    }
}
