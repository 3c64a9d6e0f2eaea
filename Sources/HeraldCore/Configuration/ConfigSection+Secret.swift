import Foundation

extension ConfigSection {
    /// A secret given inline under `key` or read from the file named by `fileKey` (one trailing newline removed).
    /// Exactly one of the two must be present.
    public func secret(_ key: String, fileKey: String) throws(ConfigurationError) -> String {
        let inline = try string(key)
        let file = try string(fileKey)
        switch (inline, file) {
        case (let inline?, nil):
            guard !inline.isEmpty else { throw ConfigurationError(key: keyPath(key), "is required") }
            return inline
        case (nil, let path?):
            guard let data = FileManager.default.contents(atPath: path), var text = String(data: data, encoding: .utf8) else {
                throw ConfigurationError(key: keyPath(fileKey), "cannot read \(path)")
            }
            // "\r\n" is one Character, so one removeLast() drops either line ending.
            if text.hasSuffix("\r\n") || text.hasSuffix("\n") { text.removeLast() }
            guard !text.isEmpty else { throw ConfigurationError(key: keyPath(fileKey), "\(path) is empty") }
            return text
        case (.some, .some):
            throw ConfigurationError(key: path, "give either \(key) or \(fileKey), not both")
        case (nil, nil):
            throw ConfigurationError(key: keyPath(key), "is required (or \(fileKey))")
        }
    }
}
