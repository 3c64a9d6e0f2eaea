/// Why a Web Push message could not be encrypted.
public struct WebPushEncryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case plaintextTooLarge(length: Int, limit: Int)
        case invalidSalt(length: Int)
        case invalidRecordSize(UInt32)
        case keyAgreementFailed
        case sealFailed
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The plaintext does not fit in one record of the chosen record size.
    static func plaintextTooLarge(length: Int, limit: Int) -> Self { Self(.plaintextTooLarge(length: length, limit: limit)) }
    /// The salt is not 16 bytes.
    static func invalidSalt(length: Int) -> Self { Self(.invalidSalt(length: length)) }
    /// The record size is below RFC 8188's minimum of 18.
    static func invalidRecordSize(_ size: UInt32) -> Self { Self(.invalidRecordSize(size)) }
    /// ECDH with the user agent's key failed.
    static let keyAgreementFailed = Self(.keyAgreementFailed)
    /// AES-GCM refused the key or nonce.
    static let sealFailed = Self(.sealFailed)

    /// Whether the plaintext was too large for one record: the notification, not the subscriber, is at fault.
    public var isPlaintextTooLarge: Bool {
        if case .plaintextTooLarge = code { return true }
        return false
    }

    public var description: String {
        switch code {
        case .plaintextTooLarge(let length, let limit): "plaintext of \(length) bytes exceeds the \(limit) bytes of one record"
        case .invalidSalt(let length): "salt must be 16 bytes, got \(length)"
        case .invalidRecordSize(let size): "record size \(size) is below the minimum of 18"
        case .keyAgreementFailed: "ECDH key agreement with the subscription's key failed"
        case .sealFailed: "AES-128-GCM encryption failed"
        }
    }
}
