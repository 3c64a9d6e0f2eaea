/// Which addresses Herald may connect to on a subscriber's behalf (`outbound.deny` and `outbound.allow`).
///
/// Anyone allowed to register names a destination (a webhook URL, a Web Push endpoint, a WNS or MPNS channel),
/// so without a policy a registration could make Herald post to a cloud metadata service or an internal host.
/// An address may be reached when it is in no ``deny`` block and, if ``allow`` is non-empty, in an ``allow``
/// block. An IPv4-mapped IPv6 address (`::ffff:169.254.169.254`) is judged as its IPv4 address too.
public struct DestinationPolicy: Sendable, Hashable {
    /// Blocks never connected to.
    public var deny: [AddressMatcher]
    /// When non-empty, the only blocks connected to.
    public var allow: [AddressMatcher]

    /// The default `deny`: link-local and cloud metadata ranges, and unspecified addresses.
    public static let defaultDenyEntries = ["169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "0.0.0.0/8", "::/128"]

    /// The default policy: ``defaultDenyEntries`` denied, everything else allowed.
    public static let standard = DestinationPolicy(
        deny: defaultDenyEntries.map { AddressMatcher($0)! },  // constants above, all valid
        allow: [])

    /// Creates a policy from parsed blocks.
    public init(deny: [AddressMatcher], allow: [AddressMatcher]) {
        self.deny = deny
        self.allow = allow
    }

    /// Whether the policy forbids nothing, so connections need no checking.
    public var permitsEverything: Bool { deny.isEmpty && allow.isEmpty }

    /// Whether Herald may connect to `address`.
    public func permits(_ address: IPAddress) -> Bool {
        if deny.contains(where: { $0.matches(address) }) { return false }
        return allow.isEmpty || allow.contains(where: { $0.matches(address) })
    }

    /// Whether a URL host as ``DestinationHost/of(_:)`` returns it (`host[:port]`, IPv6 in brackets) may be
    /// registered: a literal address must be permitted; a host name is not resolved here, so it is accepted and
    /// checked when a connection is opened.
    ///
    /// - Returns: the host without its port when it is a forbidden literal address, else `nil`.
    public func refusedLiteralHost(inAuthority authority: String) -> String? {
        let host = Self.host(ofAuthority: authority)
        guard let address = IPAddress(host) else { return nil }
        return permits(address) ? nil : host
    }

    /// The host of `host[:port]`, without the brackets of an IPv6 literal.
    static func host(ofAuthority authority: String) -> String {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return authority }
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        if let colon = authority.lastIndex(of: ":") { return String(authority[..<colon]) }
        return authority
    }
}
