import Foundation

/// Why a Web Push message body could not be decrypted: the user agent would drop such a message.
public struct WebPushDecryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case truncated(length: Int)
        case invalidRecordSize(UInt32)
        case invalidKeyIDLength(Int)
        case invalidSenderKey
        case recordTooLarge(length: Int, recordSize: UInt32)
        case authenticationFailed
        case invalidDelimiter(UInt8?)
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    static func truncated(length: Int) -> Self { Self(.truncated(length: length)) }
    static func invalidRecordSize(_ size: UInt32) -> Self { Self(.invalidRecordSize(size)) }
    static func invalidKeyIDLength(_ length: Int) -> Self { Self(.invalidKeyIDLength(length)) }
    static let invalidSenderKey = Self(.invalidSenderKey)
    static func recordTooLarge(length: Int, recordSize: UInt32) -> Self { Self(.recordTooLarge(length: length, recordSize: recordSize)) }
    static let authenticationFailed = Self(.authenticationFailed)
    static func invalidDelimiter(_ byte: UInt8?) -> Self { Self(.invalidDelimiter(byte)) }

    public var description: String {
        switch code {
        case .truncated(let length): "body of \(length) bytes is shorter than an aes128gcm header and one record"
        case .invalidRecordSize(let size): "record size \(size) is below the minimum of 18"
        case .invalidKeyIDLength(let length): "idlen is \(length), not 65 (an uncompressed P-256 key)"
        case .invalidSenderKey: "keyid is not an uncompressed P-256 point on the curve"
        case .recordTooLarge(let length, let size): "record of \(length) bytes exceeds the record size \(size): more than one record"
        case .authenticationFailed: "AES-GCM authentication failed (wrong keys or altered ciphertext)"
        case .invalidDelimiter(let byte?): String(format: "padding delimiter is 0x%02x, not 0x02 (last record)", byte)
        case .invalidDelimiter(nil): "record has no padding delimiter"
        }
    }
}
