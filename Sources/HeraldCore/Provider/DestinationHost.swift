/// The host part of a subscriber-supplied URL, as bulkheads key destinations by it.
public enum DestinationHost {
    /// `host[:port]` of an absolute URL, lower-cased and without user information; `nil` when
    /// `url` has no `scheme://authority`.
    ///
    /// Hand-parsed rather than with `URLComponents`: it runs for every delivery to a webhook or
    /// Web Push endpoint, and only needs the authority, which tokens were validated to have.
    public static func of(_ url: String) -> String? {
        guard let schemeEnd = url.utf8.firstRange(of: "://".utf8) else { return nil }
        let authorityStart = schemeEnd.upperBound
        var authorityEnd = url.utf8.endIndex
        var index = authorityStart
        while index < url.utf8.endIndex {
            let byte = url.utf8[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                authorityEnd = index
                break
            }
            index = url.utf8.index(after: index)
        }
        var authority = Substring(url.utf8[authorityStart..<authorityEnd])
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return authority.isEmpty ? nil : authority.lowercased()
    }
}
