import HeraldIntake

/// Why push2mob refused a command: each case is one exact `ERROR ...` reply of compat.md §3.
struct Push2mobRefusal: Error, Sendable, Equatable {
    private enum Kind: Equatable {
        case invalidInput
        case wrongNumberOfArguments
        case notDecimal(String)
        case invalidExpiry(String)
        case notHexPair(String)
        case wrongBase64(String)
        case wrongTokenLength(Int, String)
        case payloadTooLong(Int)
        case invalidJSON(String)
        case expiryTooHigh(Int64)
        case invalidDelayIdle(String)
        case allFilteredOut
        case unauthorized
        case rateLimited
        case intake(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// Not UTF-8, or neither `send ...` nor `feedback` (§3.2).
    static let invalidInput = Push2mobRefusal(.invalidInput)
    /// Too few fields, a count below 1, or fewer tokens than counted before a payload.
    static let wrongNumberOfArguments = Push2mobRefusal(.wrongNumberOfArguments)
    /// A count that Python's `int()` would not read.
    static func notDecimal(_ count: Substring) -> Push2mobRefusal { Push2mobRefusal(.notDecimal(String(count))) }
    /// An expiry that is not `[+]integer`.
    static func invalidExpiry(_ expiry: Substring) -> Push2mobRefusal { Push2mobRefusal(.invalidExpiry(String(expiry))) }
    /// The first two characters of a 64-character token that are not a hex byte.
    static func notHexPair(_ pair: Substring) -> Push2mobRefusal { Push2mobRefusal(.notHexPair(String(pair))) }
    /// A token that is neither 64 hex characters nor standard padded base64.
    static func wrongBase64(_ token: Substring) -> Push2mobRefusal { Push2mobRefusal(.wrongBase64(String(token))) }
    /// A token that decodes to `length` bytes instead of 32.
    static func wrongTokenLength(_ length: Int, _ token: Substring) -> Push2mobRefusal {
        Push2mobRefusal(.wrongTokenLength(length, String(token)))
    }
    /// A payload over 4096 bytes.
    static func payloadTooLong(_ bytes: Int) -> Push2mobRefusal { Push2mobRefusal(.payloadTooLong(bytes)) }
    /// A payload that is not a JSON object.
    static func invalidJSON(_ payload: Substring) -> Push2mobRefusal { Push2mobRefusal(.invalidJSON(String(payload))) }
    /// A GCM expiry more than four weeks ahead.
    static func expiryTooHigh(_ absolute: Int64) -> Push2mobRefusal { Push2mobRefusal(.expiryTooHigh(absolute)) }
    /// A GCM third argument other than `delayidle` and `nodelayidle`.
    static func invalidDelayIdle(_ argument: Substring) -> Push2mobRefusal { Push2mobRefusal(.invalidDelayIdle(String(argument))) }
    /// Every GCM registration id was filtered out by its feedback.
    static let allFilteredOut = Push2mobRefusal(.allFilteredOut)
    /// The source address is not in `server.acl.publish` (compat.md §1.1).
    static let unauthorized = Push2mobRefusal(.unauthorized)
    /// The source address is over `server.rate_limit.publish`.
    static let rateLimited = Push2mobRefusal(.rateLimited)

    /// The intake's refusal (overloaded, store unavailable, a token the provider cannot take).
    init(refusal: IntakeError) {
        self.init(.intake(refusal.message))
    }

    /// A short label for metrics: the check that failed.
    var reason: String {
        switch kind {
        case .invalidInput: "invalid_input"
        case .wrongNumberOfArguments: "wrong_number_of_arguments"
        case .notDecimal: "invalid_count"
        case .invalidExpiry: "invalid_expiry"
        case .notHexPair, .wrongBase64, .wrongTokenLength: "invalid_token"
        case .payloadTooLong: "payload_too_long"
        case .invalidJSON: "invalid_json"
        case .expiryTooHigh: "expiry_too_high"
        case .invalidDelayIdle: "invalid_delayidle"
        case .allFilteredOut: "all_filtered_out"
        case .unauthorized: "unauthorized"
        case .rateLimited: "rate_limited"
        case .intake: "not_accepted"
        }
    }

    /// The reply, exactly as compat.md §3 writes it.
    var reply: String {
        switch kind {
        case .invalidInput: "ERROR Invalid input"
        case .wrongNumberOfArguments: "ERROR Invalid input (wrong number of arguments)"
        case .notDecimal(let count): "ERROR Invalid input (invalid literal for int() with base 10: '\(count)')"
        case .invalidExpiry(let expiry): "ERROR Invalid expiry value: \(expiry)"
        case .notHexPair(let pair): "ERROR Invalid input (invalid literal for int() with base 16: '\(pair)')"
        case .wrongBase64(let token): "ERROR Wrong base64 encoding for device token: \(token)"
        case .wrongTokenLength(let length, let token): "ERROR Wrong device token length (\(length) != 32): \(token)"
        case .payloadTooLong(let bytes): "ERROR Payload too long (\(bytes) > \(Push2mobPayload.maxBytes))"
        case .invalidJSON(let payload): "ERROR Invalid JSON payload: \(payload)"
        case .expiryTooHigh(let absolute): "ERROR Expiry value too high (max \(Push2mobExpiry.maxGCMSeconds)s in the future): \(absolute)"
        case .invalidDelayIdle(let argument): "ERROR Invalid (no)delayidle value: \(argument)"
        case .allFilteredOut: "ERROR All registrations IDs have been filtered out, please get feedback"
        case .unauthorized: "ERROR Unauthorized"
        case .rateLimited: "ERROR Too many requests"
        case .intake(let message): "ERROR \(message)"
        }
    }
}
