/// Enforces what FCM enforces on a `messages:send` body (providers.md §2.3), answering its error forms.
///
/// Both field-name styles of the protobuf JSON mapping (`collapse_key` and `collapseKey`) are accepted.
struct FCMMessageValidator: Sendable {
    /// A message that passed validation.
    struct Valid: Sendable {
        /// The registration token, when the message targets one.
        var token: String?
        /// The topic or condition, when the message targets one.
        var topic: String?
        /// Whether the request only asked for validation.
        var validateOnly: Bool
    }

    /// An answer refusing the request.
    struct Refusal: Error {
        let response: FCMResponse

        init(_ response: FCMResponse) {
            self.response = response
        }
    }

    /// The largest payload of a message to a device, keys and values together.
    static let maximumPayloadBytes = 4096
    /// The largest payload of a message to a topic or condition.
    static let maximumTopicPayloadBytes = 2048
    /// The longest `android.ttl`: four weeks.
    static let maximumTTLSeconds = 2_419_200.0

    private static let requestFields = fieldNames("message", "validate_only")
    private static let messageFields = fieldNames(
        "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition")
    private static let notificationFields = fieldNames("title", "body", "image")
    private static let androidFields = fieldNames(
        "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options",
        "direct_boot_ok", "bandwidth_constrained_ok", "restricted_satellite_ok")
    private static let apnsFields = fieldNames("headers", "payload", "fcm_options", "live_activity_token")
    private static let webpushFields = fieldNames("headers", "data", "notification", "fcm_options")

    /// Registration tokens are made of these characters.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }

    let minimumTokenLength: Int

    /// Validates a parsed request body; the error answer when it is refused.
    func validate(_ request: FCMJSONValue) -> Result<Valid, Refusal> {
        guard let top = request.object else {
            return .failure(Refusal(FCMResponse.invalidArgument("Invalid JSON payload received. Expected an object.")))
        }
        if let failure = Self.unknownField(in: top, allowed: Self.requestFields, at: nil) { return .failure(Refusal(failure)) }
        var validateOnly = false
        switch Self.field(top, "validate_only") {
        case nil, .null?: break
        case .bool(let flag)?: validateOnly = flag
        case let other?: return .failure(Refusal(Self.wrongType("validate_only", "TYPE_BOOL", other)))
        }
        guard let messageValue = Self.field(top, "message"), let message = messageValue.object else {
            return .failure(Refusal(FCMResponse.invalidArgument("Recipient of the message is not set.", field: "message")))
        }
        if let failure = Self.unknownField(in: message, allowed: Self.messageFields, at: "message") { return .failure(Refusal(failure)) }

        var targets: [(name: String, value: String)] = []
        for name in ["token", "topic", "condition"] {
            switch message[name] {
            case nil, .null?: continue
            case .string(let text)?: targets.append((name, text))
            case let other?: return .failure(Refusal(Self.wrongType("message.\(name)", "TYPE_STRING", other)))
            }
        }
        guard targets.count == 1 else {
            return .failure(Refusal(FCMResponse.invalidArgument("Recipient of the message is not set.", field: "message")))
        }

        var payloadBytes = 0
        switch Self.stringMap(message["data"], at: "message.data") {
        case .failure(let failure): return .failure(failure)
        case .success(let bytes): payloadBytes += bytes
        }
        if let key = Self.reservedKey(in: message["data"]) {
            return .failure(Refusal(FCMResponse.invalidArgument("Invalid data payload key: \(key)", field: "message.data")))
        }
        if let notification = message["notification"] {
            switch Self.stringObject(notification, allowed: Self.notificationFields, at: "message.notification") {
            case .failure(let failure): return .failure(failure)
            case .success(let bytes): payloadBytes += bytes
            }
        }
        if let android = message["android"] {
            switch self.validateAndroid(android) {
            case .failure(let failure): return .failure(failure)
            case .success(let bytes): payloadBytes += bytes
            }
        }
        if let failure = Self.validatePlatform(message["apns"], allowed: Self.apnsFields, at: "message.apns") {
            return .failure(Refusal(failure))
        }
        if let failure = Self.validatePlatform(message["webpush"], allowed: Self.webpushFields, at: "message.webpush") {
            return .failure(Refusal(failure))
        }

        let target = targets[0]
        let limit = target.name == "token" ? Self.maximumPayloadBytes : Self.maximumTopicPayloadBytes
        guard payloadBytes <= limit else {
            // One captured answer had no details at all.
            return .failure(Refusal(FCMResponse.googleError(400, status: "INVALID_ARGUMENT", message: "Message is too big")))
        }
        if target.name == "token" {
            let bytes = target.value.utf8
            guard bytes.count >= self.minimumTokenLength, bytes.count <= 4096, bytes.allSatisfy(Self.isTokenCharacter) else {
                return .failure(Refusal(Self.invalidToken))
            }
            return .success(Valid(token: target.value, topic: nil, validateOnly: validateOnly))
        }
        return .success(Valid(token: nil, topic: target.value, validateOnly: validateOnly))
    }

    /// FCM's answer to a string that is not a registration token (providers.md §2.3).
    static let invalidToken = FCMResponse.googleError(
        400, status: "INVALID_ARGUMENT", message: "The registration token is not a valid FCM registration token",
        errorCode: "INVALID_ARGUMENT")

    private func validateAndroid(_ value: FCMJSONValue) -> Result<Int, Refusal> {
        guard let android = value.object else {
            return .failure(Refusal(Self.wrongType("message.android", "TYPE_MESSAGE", value)))
        }
        if let failure = Self.unknownField(in: android, allowed: Self.androidFields, at: "message.android") {
            return .failure(Refusal(failure))
        }
        for name in ["collapse_key", "restricted_package_name"] {
            if let field = Self.field(android, name), field != .null, field.string == nil {
                return .failure(Refusal(Self.wrongType("message.android.\(name)", "TYPE_STRING", field)))
            }
        }
        if let priority = Self.field(android, "priority"), priority != .null {
            guard let text = priority.string, ["normal", "high", "NORMAL", "HIGH"].contains(text) else {
                return .failure(Refusal(Self.wrongType(
                    "message.android.priority", "type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority", priority)))
            }
        }
        if let ttl = Self.field(android, "ttl"), ttl != .null {
            guard let text = ttl.string, let seconds = Self.durationSeconds(text) else {
                return .failure(Refusal(Self.wrongType("message.android.ttl", "type.googleapis.com/google.protobuf.Duration", ttl)))
            }
            guard seconds >= 0, seconds <= Self.maximumTTLSeconds else {
                return .failure(Refusal(FCMResponse.invalidArgument(
                    "Invalid value at 'message.android.ttl': must be between 0 and 2419200 seconds", field: "message.android.ttl")))
            }
        }
        return Self.stringMap(Self.field(android, "data"), at: "message.android.data")
    }

    private static func validatePlatform(_ value: FCMJSONValue?, allowed: Set<String>, at path: String) -> FCMResponse? {
        guard let value, value != .null else { return nil }
        guard let object = value.object else { return wrongType(path, "TYPE_MESSAGE", value) }
        if let failure = unknownField(in: object, allowed: allowed, at: path) { return failure }
        if case .failure(let failure) = stringMap(object["headers"], at: "\(path).headers") { return failure.response }
        if case .failure(let failure) = stringMap(object["data"], at: "\(path).data") { return failure.response }
        return nil
    }

    /// Checks a `map<string,string>`; the bytes of its keys and values.
    private static func stringMap(_ value: FCMJSONValue?, at path: String) -> Result<Int, Refusal> {
        guard let value, value != .null else { return .success(0) }
        guard let members = value.object else { return .failure(Refusal(wrongType(path, "TYPE_MESSAGE", value))) }
        var bytes = 0
        for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
            guard let text = member.value.string else {
                return .failure(Refusal(wrongType("\(path)[\(index)].value", "TYPE_STRING", member.value)))
            }
            bytes += member.key.utf8.count + text.utf8.count
        }
        return .success(bytes)
    }

    /// Checks an object of string fields; the bytes of their values.
    private static func stringObject(_ value: FCMJSONValue, allowed: Set<String>, at path: String) -> Result<Int, Refusal> {
        guard let object = value.object else { return .failure(Refusal(wrongType(path, "TYPE_MESSAGE", value))) }
        if let failure = unknownField(in: object, allowed: allowed, at: path) { return .failure(Refusal(failure)) }
        var bytes = 0
        for (key, member) in object where member != .null {
            guard let text = member.string else { return .failure(Refusal(wrongType("\(path).\(key)", "TYPE_STRING", member))) }
            bytes += text.utf8.count
        }
        return .success(bytes)
    }

    /// A data key FCM reserves: `from`, `message_type`, or one starting with `google` or `gcm`.
    private static func reservedKey(in data: FCMJSONValue?) -> String? {
        data?.object?.keys.sorted().first { key in
            key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm")
        }
    }

    /// The seconds of a protobuf `Duration` string (`3.5s`), or `nil` when it is not one.
    static func durationSeconds(_ text: String) -> Double? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0].hasPrefix("-") ? parts[0].dropFirst() : parts[0]
        guard !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        if parts.count == 2 {
            guard (1...9).contains(parts[1].count), parts[1].allSatisfy(\.isASCIIDigit) else { return nil }
        }
        return Double(number)
    }

    /// `Invalid value at '<path>' (<type>), <value>`, as a field violation on `path`.
    private static func wrongType(_ path: String, _ type: String, _ value: FCMJSONValue) -> FCMResponse {
        .invalidArgument("Invalid value at '\(path)' (\(type)), \(value.errorText)", field: path)
    }

    /// The answer to a field the message type does not have, if `object` has one.
    private static func unknownField(in object: [String: FCMJSONValue], allowed: Set<String>, at path: String?) -> FCMResponse? {
        guard let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) else { return nil }
        let location = path.map { " at '\($0)'" } ?? ""
        return .invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\"\(location): Cannot find field.", field: path)
    }

    /// A field under either of its names (`collapse_key` or `collapseKey`).
    private static func field(_ object: [String: FCMJSONValue], _ snakeName: String) -> FCMJSONValue? {
        object[snakeName] ?? object[camelCase(snakeName)]
    }

    /// Both spellings of each name.
    private static func fieldNames(_ names: String...) -> Set<String> {
        Set(names.flatMap { [$0, camelCase($0)] })
    }

    private static func camelCase(_ snakeName: String) -> String {
        let parts = snakeName.split(separator: "_")
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
