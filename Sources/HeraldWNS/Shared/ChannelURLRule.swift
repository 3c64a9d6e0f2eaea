/// Which channel URIs a WNS or MPNS provider accepts as tokens (pushd-api.md §9).
///
/// The service rule is rs/pushd's regular expression `^https?://[a-zA-Z0-9-.]+\.<domain>/\S{0,500}$`,
/// checked without a regular expression engine. A provider pointed at a simulator or a proxy
/// (`token_endpoint` for `wns`, `endpoint` for `mpns`) also accepts `http`/`https` URLs on that
/// origin's host and port, with the same limit on what follows the first `/`.
public struct ChannelURLRule: Sendable, Equatable {
    /// The service's host suffix, without the leading dot (`notify.windows.com`).
    public var serviceDomain: String
    /// The host and port of the configured origin whose URLs are also accepted, if any.
    public var alternateOrigin: ChannelOrigin?

    /// The longest path accepted after the host, in UTF-16 code units as JavaScript counted them.
    public static let maximumPathLength = 500

    /// Creates a rule for `serviceDomain` (`notify.windows.com`, `notify.live.net`).
    public init(serviceDomain: String, alternateOrigin: ChannelOrigin? = nil) {
        self.serviceDomain = serviceDomain
        self.alternateOrigin = alternateOrigin
    }

    /// Whether `text` is an acceptable channel URI.
    public func accepts(_ text: String) -> Bool {
        let scheme: String
        let afterScheme: Substring
        if text.hasPrefix("https://") {
            scheme = "https"
            afterScheme = text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            scheme = "http"
            afterScheme = text.dropFirst(7)
        } else {
            return false
        }
        guard let slash = afterScheme.firstIndex(of: "/") else { return false }
        let authority = afterScheme[..<slash]
        let path = afterScheme[afterScheme.index(after: slash)...]
        guard Self.isAcceptablePath(path) else { return false }
        if isServiceHost(authority) { return true }
        guard let alternateOrigin, let origin = ChannelOrigin(scheme: scheme, authority: authority) else { return false }
        return origin == alternateOrigin
    }

    /// `[a-zA-Z0-9-.]+\.<domain>`: at least one allowed character before the dot of the domain.
    private func isServiceHost(_ authority: Substring) -> Bool {
        let suffix = "." + serviceDomain
        guard authority.utf8.count > suffix.utf8.count, authority.hasSuffix(suffix) else { return false }
        return authority.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."):
                return true
            default:
                return false
            }
        }
    }

    /// `\S{0,500}` up to the end.
    private static func isAcceptablePath(_ path: Substring) -> Bool {
        guard path.utf16.count <= maximumPathLength else { return false }
        return !path.unicodeScalars.contains { $0.properties.isWhitespace }
    }
}
