import HeraldCore

/// Whose bucket a request draws on: the Basic user when the request was authenticated, else where it came from.
public enum RateLimitClient: Sendable, Hashable {
    /// An authenticated HTTP Basic user, wherever it connects from.
    case user(String)
    /// An API token, by name, wherever it is used from.
    case token(String)
    /// A UnifiedPush topic, whoever pushes to it (`unifiedpush.rate`).
    case topic(String)
    /// An unauthenticated source: an IPv4 address, or an IPv6 address's /64.
    ///
    /// A /64 is what one IPv6 subscriber line or host usually gets; keying by the full address would
    /// let one client take a fresh bucket for every address of its prefix.
    case network(IPAddress)
    /// A source with no IP address (not an IP socket): all such share one bucket.
    case unidentified

    /// The client for a source address as text (`SocketAddress.ipAddress`); an IPv4-mapped IPv6
    /// address (`::ffff:a.b.c.d`, as dual-stack sockets report IPv4 peers) counts as its IPv4 address.
    public init(address text: String?) {
        guard let text, let address = IPAddress(text)?.unmapped else {
            self = .unidentified
            return
        }
        self = .network(address.isIPv4 ? address : address.network(prefixLength: 64))
    }
}
