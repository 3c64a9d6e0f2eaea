import Foundation

/// Push Kit's checks of a `messages:send` body, in the order the simulator applies them: the JSON shape, the
/// target, the size of the message without its tokens, then the fields.
struct HMSMessageValidator: Sendable {
    /// A body that passed.
    struct Valid {
        /// The tokens, in order; empty when the message targets a topic or condition.
        var tokens: [String]
        /// The topic or condition, when the message targets one.
        var target: String?
        /// Whether Push Kit only validates the message (`validate_only`).
        var validateOnly: Bool
    }

    /// A body that did not: the code, HTTP status and `msg` Push Kit answers.
    struct Refusal: Error {
        var code: String
        var httpStatus: Int
        var msg: String

        /// `80100001`: a field has a wrong value.
        static func parameter(_ msg: String) -> Refusal { Refusal(code: "80100001", httpStatus: 400, msg: msg) }
        /// `80100003`: the message's structure is wrong.
        static func payload(_ msg: String) -> Refusal { Refusal(code: "80100003", httpStatus: 400, msg: "Illegal payload, " + msg) }
    }

    /// The most tokens in one request.
    let maximumTokens: Int
    /// The largest `message` without its `token` list, in bytes.
    let maximumMessageBytes: Int

    /// Checks `body`.
    func validate(_ body: [UInt8]) -> Result<Valid, Refusal> {
        do {
            return .success(try check(body))
        } catch let refusal as Refusal {
            return .failure(refusal)
        } catch {
            return .failure(.payload("the request body is not JSON"))
        }
    }

    private func check(_ body: [UInt8]) throws -> Valid {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw Refusal.payload("the request body is not a JSON object")
        }
        var validateOnly = false
        if let flag = object["validate_only"] {
            guard let value = flag as? Bool else { throw Refusal.parameter("validate_only must be a boolean") }
            validateOnly = value
        }
        guard let message = object["message"] as? [String: Any] else {
            throw Refusal.payload("message is empty")
        }
        let size = Self.messageBytes(of: body) ?? 0
        guard size <= maximumMessageBytes else {
            throw Refusal(code: "80300008", httpStatus: 400, msg: "The message body size exceeds the default value.")
        }

        var tokens: [String] = []
        var target: String?
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        guard targets.count == 1 else {
            throw Refusal.parameter("one of token, topic and condition must be given")
        }
        if let list = message["token"] {
            guard let strings = list as? [String] else { throw Refusal.parameter("token must be an array of strings") }
            guard !strings.isEmpty, strings.count <= maximumTokens else {
                throw Refusal(
                    code: "80300010", httpStatus: 400, msg: "The number of tokens in the message body exceeds the default value.")
            }
            tokens = strings
        } else {
            guard let text = (message["topic"] ?? message["condition"]) as? String, !text.isEmpty else {
                throw Refusal.parameter("topic and condition must be non-empty strings")
            }
            target = text
        }

        if let data = message["data"], !(data is String) {
            throw Refusal.parameter("data must be a string")
        }
        let notification = message["notification"] as? [String: Any]
        if message["notification"] != nil, notification == nil {
            throw Refusal.payload("notification must be an object")
        }
        if let android = message["android"] {
            guard let android = android as? [String: Any] else { throw Refusal.payload("android must be an object") }
            try check(android: android, messageNotification: notification)
        }
        return Valid(tokens: tokens, target: target, validateOnly: validateOnly)
    }

    /// `message.android`: collapse key, urgency, TTL and the notification.
    private func check(android: [String: Any], messageNotification: [String: Any]?) throws {
        if let value = android["collapse_key"] {
            guard let key = Self.integer(value), (-1...100).contains(key) else {
                throw Refusal.parameter("collapse_key must be an integer from -1 to 100")
            }
        }
        if let value = android["urgency"] {
            guard let urgency = value as? String, urgency == "HIGH" || urgency == "NORMAL" else {
                throw Refusal.parameter("urgency must be HIGH or NORMAL")
            }
        }
        if let value = android["ttl"] {
            guard let ttl = value as? String, Self.isDuration(ttl) else { throw Refusal.parameter("ttl is malformed") }
        }
        guard let value = android["notification"] else { return }
        guard let notification = value as? [String: Any] else { throw Refusal.payload("android.notification must be an object") }
        let texts = ["title", "body"].compactMap { notification[$0] ?? messageNotification?[$0] }
        guard !texts.isEmpty, texts.allSatisfy({ $0 is String }), texts.contains(where: { !(($0 as? String) ?? "").isEmpty }) else {
            throw Refusal.parameter("the notification needs a title or a body")
        }
        guard let clickAction = notification["click_action"] as? [String: Any] else {
            throw Refusal.parameter("click_action must not be empty")
        }
        guard let type = clickAction["type"].flatMap(Self.integer), (1...4).contains(type) else {
            throw Refusal.parameter("click_action.type must be from 1 to 4")
        }
        func present(_ key: String) -> Bool { ((clickAction[key] as? String) ?? "").isEmpty == false }
        switch type {
        case 1 where !present("intent") && !present("action"):
            throw Refusal.parameter("click_action type 1 needs an intent or an action")
        case 2 where !present("url"):
            throw Refusal.parameter("click_action type 2 needs a url")
        case 4 where !present("rich_resource"):
            throw Refusal.parameter("click_action type 4 needs a rich_resource")
        default:
            break
        }
        if let value = notification["badge"] {
            guard let badge = value as? [String: Any] else { throw Refusal.payload("badge must be an object") }
            guard let badgeClass = badge["class"] as? String, !badgeClass.isEmpty else {
                throw Refusal.payload("badge class is empty")
            }
            if let value = badge["add_num"] {
                guard let number = Self.integer(value), (1...99).contains(number) else {
                    throw Refusal.payload("badge addNum value ranges from 1 to 99")
                }
            }
            if let value = badge["set_num"] {
                guard let number = Self.integer(value), (0...99).contains(number) else {
                    throw Refusal.payload("badge setNum value ranges from 0 to 99")
                }
            }
        }
    }

    /// A JSON number that is a whole number, as an `Int`.
    private static func integer(_ value: Any) -> Int? {
        guard !(value is String), let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double == double.rounded(), abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    /// A duration as Push Kit writes it: seconds with up to nine decimals, optionally followed by `s`.
    static func isDuration(_ text: String) -> Bool {
        var digits = Substring(text)
        if digits.hasSuffix("s") || digits.hasSuffix("S") { digits = digits.dropLast() }
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        }
        return true
    }

    // MARK: Size

    /// The bytes of the body's `message` object without its `token` member and the comma beside it: what Push Kit's
    /// size limit applies to, whatever the number of tokens. `nil` when the body has no `message` object.
    static func messageBytes(of body: [UInt8]) -> Int? {
        body.withUnsafeBytes { raw -> Int? in
            var scanner = JSONSyntaxScanner(bytes: raw)
            scanner.skipWhitespace()
            guard scanner.consume(UInt8(ascii: "{")) else { return nil }
            scanner.skipWhitespace()
            if scanner.consume(UInt8(ascii: "}")) { return nil }
            while true {
                scanner.skipWhitespace()
                guard let key = memberKey(&scanner, raw) else { return nil }
                if key == "message" {
                    return objectBytes(&scanner, raw, excluding: "token")
                }
                guard scanner.value(depth: 1) else { return nil }
                scanner.skipWhitespace()
                // A closing brace instead of a comma: the body has no message.
                guard scanner.consume(UInt8(ascii: ",")) else { return nil }
            }
        }
    }

    /// Reads `"key":` and the whitespace after it; returns the key as written (Push Kit's field names have no
    /// escapes).
    private static func memberKey(_ scanner: inout JSONSyntaxScanner, _ raw: UnsafeRawBufferPointer) -> String? {
        let start = scanner.index
        guard scanner.peek() == UInt8(ascii: "\""), scanner.string() else { return nil }
        let key = String(decoding: raw[(start + 1)..<(scanner.index - 1)], as: UTF8.self)
        scanner.skipWhitespace()
        guard scanner.consume(UInt8(ascii: ":")) else { return nil }
        scanner.skipWhitespace()
        return key
    }

    /// The length of the object at the scanner, less its member called `excluded` and one comma beside it.
    private static func objectBytes(
        _ scanner: inout JSONSyntaxScanner, _ raw: UnsafeRawBufferPointer, excluding excluded: String
    ) -> Int? {
        let start = scanner.index
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        var removed = 0
        scanner.skipWhitespace()
        if !scanner.consume(UInt8(ascii: "}")) {
            var first = true
            while true {
                scanner.skipWhitespace()
                let memberStart = scanner.index
                guard let key = memberKey(&scanner, raw), scanner.value(depth: 2) else { return nil }
                let memberEnd = scanner.index
                scanner.skipWhitespace()
                let closing = scanner.consume(UInt8(ascii: "}"))
                if !closing {
                    guard scanner.consume(UInt8(ascii: ",")) else { return nil }
                }
                if key == excluded {
                    // The comma after it, or before it when it is the last member; none when it is the only one.
                    removed += memberEnd - memberStart + (closing && first ? 0 : 1)
                }
                if closing { break }
                first = false
            }
        }
        return scanner.index - start - removed
    }
}
