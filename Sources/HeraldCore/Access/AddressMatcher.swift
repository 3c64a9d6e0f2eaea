/// One ACL entry: an IPv4 or IPv6 address or CIDR block (§2.3).
///
/// A bare address is a /32 (IPv4) or /128 (IPv6). Host bits below the prefix are
/// ignored (`10.1.2.3/8` is `10.0.0.0/8`). An entry written as an IPv4-mapped IPv6
/// block (`::ffff:10.0.0.0/104`) is the IPv4 block it maps. A source address
/// `::ffff:a.b.c.d` matches what its IPv4 address `a.b.c.d` matches, and also IPv6
/// blocks that contain it as written (`::/0`).
public struct AddressMatcher: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block.
    public let network: IPAddress
    /// The number of leading bits that must match.
    public let prefixLength: Int

    /// Parses `entry` (`127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`); `nil` when it is none of these.
    ///
    /// Zone ids are refused here: a zone only qualifies a link-local source address.
    public init?(_ entry: String) {
        let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard !entry.utf8.contains(UInt8(ascii: "%")), let address = IPAddress(String(parts[0])) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var prefix = width
        if parts.count == 2 {
            let digits = parts[1].utf8
            guard !digits.isEmpty, digits.count <= 3,
                digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = Int(parts[1]), value <= width
            else { return nil }
            prefix = value
        }
        if address.isIPv4Mapped, prefix >= 96 {
            self.init(address: address.unmapped, prefixLength: prefix - 96)
        } else {
            self.init(address: address, prefixLength: prefix)
        }
    }

    private init(address: IPAddress, prefixLength: Int) {
        self.network = Self.masked(address, prefixLength: prefixLength)
        self.prefixLength = prefixLength
    }

    /// Whether `address` falls inside the block (see the type's rules for mapped addresses).
    public func matches(_ address: IPAddress) -> Bool {
        if contains(address) { return true }
        return address.isIPv4Mapped && contains(address.unmapped)
    }

    /// The block as `address/prefix`.
    public var description: String { "\(network)/\(prefixLength)" }

    private func contains(_ address: IPAddress) -> Bool {
        switch (address.storage, network.storage) {
        case (.v4, .v4), (.v6, .v6): Self.masked(address, prefixLength: prefixLength) == network
        default: false
        }
    }

    private static func masked(_ address: IPAddress, prefixLength: Int) -> IPAddress {
        switch address.storage {
        case .v4(let value):
            let mask: UInt32 = prefixLength == 0 ? 0 : ~0 << UInt32(32 - prefixLength)
            return IPAddress(storage: .v4(value & mask))
        case .v6(let high, let low):
            let highMask: UInt64 = prefixLength >= 64 ? ~0 : (prefixLength == 0 ? 0 : ~0 << UInt64(64 - prefixLength))
            let lowMask: UInt64 = prefixLength <= 64 ? 0 : (prefixLength == 128 ? ~0 : ~0 << UInt64(128 - prefixLength))
            return IPAddress(storage: .v6(high: high & highMask, low: low & lowMask))
        }
    }
}
