import Foundation

/// An `application/x-www-form-urlencoded` body as the token endpoint reads it.
struct WNSFormBody {
    /// Fields in body order; a repeated name keeps its first value.
    private(set) var fields: [String: String] = [:]

    /// Decodes `text`: `&`-separated `name=value` pairs, `+` as space, percent escapes decoded.
    init(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if fields[name] == nil { fields[name] = value }
        }
    }

    /// The value of `name`, if present.
    subscript(name: String) -> String? { fields[name] }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
