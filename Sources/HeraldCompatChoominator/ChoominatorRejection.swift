import HeraldIntake

/// Why a Choominator datagram was dropped: counted by ``reason`` in
/// `herald_choominator_datagrams_total` and logged with ``message`` (no reply is ever sent).
struct ChoominatorRejection: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Equatable {
        case unauthorized
        case rateLimited
        case malformedJSON
        case notAnObject
        case unknownKey(String)
        case duplicateKey(String)
        case missing(String)
        case invalidValue(String)
        case invalidToken
        case invalidGroup
        case keyTooLong
        case payloadTooLarge(Int)
        case refused(IntakeError)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The source address is not in the port's ACL.
    static let unauthorized = ChoominatorRejection(.unauthorized)
    /// The source is over its rate limit in the port's realm (`server.rate_limit`).
    static let rateLimited = ChoominatorRejection(.rateLimited)
    /// Not strict UTF-8 JSON.
    static let malformedJSON = ChoominatorRejection(.malformedJSON)
    /// JSON whose root is not an object.
    static let notAnObject = ChoominatorRejection(.notAnObject)
    /// A key the port does not know.
    static func unknownKey(_ key: String) -> ChoominatorRejection { ChoominatorRejection(.unknownKey(key)) }
    /// A key given twice: which one the sender meant is unknowable.
    static func duplicateKey(_ key: String) -> ChoominatorRejection { ChoominatorRejection(.duplicateKey(key)) }
    /// A required key is absent.
    static func missing(_ key: String) -> ChoominatorRejection { ChoominatorRejection(.missing(key)) }
    /// A key's value has the wrong type or is out of range.
    static func invalidValue(_ key: String) -> ChoominatorRejection { ChoominatorRejection(.invalidValue(key)) }
    /// `device` is not an APNs token.
    static let invalidToken = ChoominatorRejection(.invalidToken)
    /// `group` is not a valid event name.
    static let invalidGroup = ChoominatorRejection(.invalidGroup)
    /// `key` is longer than APNs's collapse id allows.
    static let keyTooLong = ChoominatorRejection(.keyTooLong)
    /// The re-serialized payload is over the APNs limit.
    static func payloadTooLarge(_ bytes: Int) -> ChoominatorRejection { ChoominatorRejection(.payloadTooLarge(bytes)) }
    /// The intake refused a valid datagram (overloaded, store unavailable).
    static func refused(_ error: IntakeError) -> ChoominatorRejection { ChoominatorRejection(.refused(error)) }

    /// The metric label: a small fixed set.
    var reason: String {
        switch kind {
        case .unauthorized: "unauthorized"
        case .rateLimited: "rate_limited"
        case .malformedJSON: "malformed_json"
        case .notAnObject: "not_an_object"
        case .unknownKey: "unknown_key"
        case .duplicateKey: "duplicate_key"
        case .missing: "missing_key"
        case .invalidValue: "invalid_value"
        case .invalidToken: "invalid_token"
        case .invalidGroup: "invalid_group"
        case .keyTooLong: "key_too_long"
        case .payloadTooLarge: "payload_too_large"
        case .refused(let error): error.code.description
        }
    }

    /// The text logged.
    var message: String {
        switch kind {
        case .unauthorized: "source address not allowed"
        case .rateLimited: "too many datagrams from this source"
        case .malformedJSON: "Erroneus data: not a JSON text"
        case .notAnObject: "Erroneus data: the root is not an object"
        case .unknownKey(let key): "unknown key \"\(key)\""
        case .duplicateKey(let key): "key \"\(key)\" given twice"
        case .missing(let key): "missing \"\(key)\""
        case .invalidValue(let key): "invalid value for \"\(key)\""
        case .invalidToken: "\"device\" is not an APNs token (hex, even length, 64 to 200 characters)"
        case .invalidGroup: "\"group\" is not a valid event name"
        case .keyTooLong: "\"key\" is longer than 64 bytes"
        case .payloadTooLarge(let bytes): "payload of \(bytes) bytes is over the 4096-byte limit"
        case .refused(let error): error.message
        }
    }

    var description: String { "\(reason): \(message)" }
}
