import Foundation
import HeraldCore

/// Reads files named by the configuration (`--config`, `*_file` secrets).
enum SecretFile {
    /// The file's text with one trailing newline removed, as editors and `echo` add one.
    static func read(_ path: String, key: String) throws(ConfigurationError) -> String {
        var text = try readText(path, key: key)
        // "\r\n" is one Character in Swift, so a single removeLast drops either ending.
        if text.hasSuffix("\r\n") || text.hasSuffix("\n") {
            text.removeLast()
        }
        guard !text.isEmpty else { throw ConfigurationError(key: key, "\(path) is empty") }
        return text
    }

    /// The whole file as UTF-8 text; errors name `key` and say why the file could not be used.
    static func readText(_ path: String, key: String) throws(ConfigurationError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigurationError(key: key, "cannot read \(path): no such file")
        }
        guard !isDirectory.boolValue else {
            throw ConfigurationError(key: key, "cannot read \(path): it is a directory")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: key, "cannot read \(path): permission denied or I/O error")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(key: key, "cannot read \(path): not UTF-8 text")
        }
        return text
    }
}
