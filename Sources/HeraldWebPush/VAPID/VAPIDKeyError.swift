/// Why a VAPID key could not be read or written.
public struct VAPIDKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case unreadableFile(String)
        case notAKey
        case unwritableFile(String)
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The file at `path` could not be read.
    static func unreadableFile(_ path: String) -> Self { Self(.unreadableFile(path)) }
    /// The text is neither a PEM P-256 private key nor a base64url 32-byte scalar.
    static let notAKey = Self(.notAKey)
    /// The file at `path` could not be written.
    static func unwritableFile(_ path: String) -> Self { Self(.unwritableFile(path)) }

    public var description: String {
        switch code {
        case .unreadableFile(let path): "cannot read \(path)"
        case .notAKey: "not a P-256 private key (PEM, or base64url of the 32-byte private scalar)"
        case .unwritableFile(let path): "cannot write \(path)"
        }
    }
}
