/// An IPv4 or IPv6 address, parsed without the C library so that parsing is the same on every platform.
///
/// IPv4 is the dotted-quad form only (`10.0.0.1`; no octal, hex or shortened forms,
/// and no leading zeros, which some parsers read as octal). IPv6 is RFC 4291 text:
/// `::` compression and an embedded IPv4 tail (`::ffff:10.0.0.1`). A zone id
/// (`fe80::1%eth0`), as socket APIs report link-local peers, is accepted and dropped:
/// ACL entries cannot name a zone, so it never matters for matching.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address bits, kept per family so that an IPv4 address never equals an IPv6 one.
    enum Storage: Sendable, Hashable {
        case v4(UInt32)
        case v6(high: UInt64, low: UInt64)
    }

    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }

    /// Parses an IPv4 or IPv6 address; `nil` when `text` is neither.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        if bytes.contains(UInt8(ascii: ":")) {
            var end = bytes.endIndex
            if let percent = bytes.firstIndex(of: UInt8(ascii: "%")) {
                guard percent + 1 < bytes.endIndex else { return nil }
                end = percent
            }
            guard let (high, low) = Self.parseIPv6(bytes[..<end]) else { return nil }
            storage = .v6(high: high, low: low)
        } else {
            guard let value = Self.parseIPv4(bytes[...]) else { return nil }
            storage = .v4(value)
        }
    }

    /// Whether this is an IPv4 address (a mapped `::ffff:a.b.c.d` address is IPv6; see ``unmapped``).
    public var isIPv4: Bool {
        if case .v4 = storage { return true }
        return false
    }

    /// Whether this is an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`).
    public var isIPv4Mapped: Bool {
        if case .v6(let high, let low) = storage { return high == 0 && low >> 32 == 0xFFFF }
        return false
    }

    /// The IPv4 address `a.b.c.d` for `::ffff:a.b.c.d`, as dual-stack sockets report IPv4 peers; otherwise the address itself.
    public var unmapped: IPAddress {
        if case .v6(_, let low) = storage, isIPv4Mapped { return IPAddress(storage: .v4(UInt32(truncatingIfNeeded: low))) }
        return self
    }

    /// The address in its canonical text form (RFC 5952 for IPv6: lower case, longest zero run as `::`).
    public var description: String {
        switch storage {
        case .v4(let value):
            return Self.dottedQuad(value)
        case .v6(let high, let low):
            if isIPv4Mapped { return "::ffff:" + Self.dottedQuad(UInt32(truncatingIfNeeded: low)) }
            let groups = (0..<8).map { index -> UInt16 in
                let word = index < 4 ? high : low
                return UInt16(truncatingIfNeeded: word >> (48 - 16 * UInt64(index % 4)))
            }
            var bestStart = -1
            var bestLength = 1  // RFC 5952 §4.2.2: a single zero group is not compressed
            var index = 0
            while index < 8 {
                guard groups[index] == 0 else {
                    index += 1
                    continue
                }
                let start = index
                while index < 8, groups[index] == 0 { index += 1 }
                if index - start > bestLength {
                    bestStart = start
                    bestLength = index - start
                }
            }
            func hex(_ range: Range<Int>) -> String {
                groups[range].map { String($0, radix: 16) }.joined(separator: ":")
            }
            guard bestStart >= 0 else { return hex(0..<8) }
            return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
        }
    }

    private static func dottedQuad(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }

    /// Four decimal octets, 0–255, without leading zeros.
    static func parseIPv4(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        var octets = 0
        for part in bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.count <= 3,
                part.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                part.count == 1 || part.first != UInt8(ascii: "0")
            else { return nil }
            let octet = part.reduce(UInt32(0)) { $0 * 10 + UInt32($1 - UInt8(ascii: "0")) }
            guard octet <= 255 else { return nil }
            value = value << 8 | octet
            octets += 1
        }
        return octets == 4 ? value : nil
    }

    /// RFC 4291 §2.2 text: eight groups, at most one `::`, optionally ending in dotted IPv4.
    static func parseIPv6(_ bytes: ArraySlice<UInt8>) -> (UInt64, UInt64)? {
        var compression: Int?
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: ":") {
                guard compression == nil else { return nil }
                compression = index
                index += 2
            } else {
                index += 1
            }
        }
        var groups: [UInt16]
        if let compression {
            guard let head = parseGroups(bytes[bytes.startIndex..<compression], allowsIPv4Tail: false),
                let tail = parseGroups(bytes[(compression + 2)...], allowsIPv4Tail: true),
                head.count + tail.count <= 7
            else { return nil }
            groups = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let all = parseGroups(bytes, allowsIPv4Tail: true), all.count == 8 else { return nil }
            groups = all
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (offset, group) in groups.enumerated() {
            if offset < 4 { high = high << 16 | UInt64(group) } else { low = low << 16 | UInt64(group) }
        }
        return (high, low)
    }

    /// Colon-separated groups of 1–4 hex digits; the last may be a dotted IPv4 address (two groups).
    private static func parseGroups(_ bytes: ArraySlice<UInt8>, allowsIPv4Tail: Bool) -> [UInt16]? {
        if bytes.isEmpty { return [] }
        let parts = bytes.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (offset, part) in parts.enumerated() {
            if part.contains(UInt8(ascii: ".")) {
                guard allowsIPv4Tail, offset == parts.count - 1, let ipv4 = parseIPv4(part) else { return nil }
                groups.append(UInt16(ipv4 >> 16))
                groups.append(UInt16(ipv4 & 0xFFFF))
                continue
            }
            guard !part.isEmpty, part.count <= 4 else { return nil }
            var group: UInt16 = 0
            for byte in part {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                group = group << 4 | UInt16(digit)
            }
            groups.append(group)
        }
        return groups.count <= 8 ? groups : nil
    }
}
