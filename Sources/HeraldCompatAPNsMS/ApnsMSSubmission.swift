import HeraldCore

/// A `POST /notification` body that passed the checks of compat.md §4.3, with what is sent to
/// APNs (§4.5) and the echo of a success (§4.6).
struct ApnsMSSubmission: Sendable {
    /// apns-ms's largest payload, today's APNs limit (the original's was 256 bytes).
    static let maxPayloadBytes = 4096

    /// The device token as given.
    let deviceToken: String
    /// The identifier as given, or the generated one.
    let identifier: String
    /// The APNs payload: `aps` and the custom values, keys sorted.
    let payload: String
    /// `apns-priority` and `apns-expiration`, when the request sets them.
    let headers: [String: String]
    /// The 202 body.
    let echo: String

    /// Runs checks 1–10 in order, `admit` being check 4 (whether Herald takes more work); throws the
    /// first failure's answer.
    init(
        body: [UInt8], makeIdentifier: () -> String = Self.randomIdentifier, admit: () async throws(ApnsMSError) -> Void = {}
    ) async throws(ApnsMSError) {
        guard body.contains(where: { !Self.isSpace($0) }) else { throw .missingData }
        let notification: ApnsMSNotification
        do {
            notification = try ApnsMSNotification(decoding: try GoJSONReader.firstValue(body))
        } catch {
            throw .decoding(error)
        }
        let fields = notification.payload ?? ApnsMSPayloadFields()
        let alert = try fields.aps.alert.map { value throws(ApnsMSError) in try ApnsMSAlert(value) }
        try await admit()
        guard let tokenBytes = Self.hexByteCount(notification.deviceToken) else { throw .tokenNotHex }
        guard tokenBytes == 32 else { throw .tokenLength(tokenBytes) }
        if !notification.identifier.isEmpty {
            guard let identifierBytes = Self.hexByteCount(notification.identifier) else { throw .identifierNotHex }
            guard identifierBytes == 4 else { throw .identifierLength(identifierBytes) }
        }
        let customValues = fields.customValues ?? []
        guard !customValues.contains(where: { $0.key == "aps" }) else { throw .reservedAPS }
        let payload = Self.payload(aps: fields.aps, alert: alert, customValues: customValues)
        guard payload.utf8.count <= Self.maxPayloadBytes else { throw .payloadTooLarge(payload.utf8.count) }

        deviceToken = notification.deviceToken
        identifier = notification.identifier.isEmpty ? makeIdentifier() : notification.identifier
        self.payload = payload
        var headers: [String: String] = [:]
        // Without a priority the provider derives it, and the push type, from `aps` (§1.2); it
        // also sends a background notification with priority 5 whatever is asked.
        if notification.priority != 0 { headers["apns-priority"] = String(notification.priority) }
        if let expires = notification.expires { headers["apns-expiration"] = String(max(0, expires.unixSeconds)) }
        self.headers = headers
        echo = Self.echo(notification, identifier: identifier, payload: payload)
    }

    /// Go's `strings.TrimSpace` set, in ASCII.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// The number of bytes `text` decodes to as hex (either case), or `nil` when it is not hex.
    static func hexByteCount(_ text: String) -> Int? {
        let bytes = text.utf8
        guard bytes.count % 2 == 0, bytes.allSatisfy({ $0.isHexDigit }) else { return nil }
        return bytes.count / 2
    }

    /// Four random bytes as lowercase hex.
    static func randomIdentifier() -> String {
        let value = String(UInt32.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 8 - value.count) + value
    }

    /// The payload of §4.5 and §4.6: one object of `aps` and the custom values, keys sorted.
    static func payload(aps: ApnsMSAPSFields, alert: ApnsMSAlert?, customValues: [(key: String, value: BodyValue)]) -> String {
        var writer = GoJSONWriter()
        writer.beginObject()
        var apsWritten = false
        func writeAPS() {
            writer.key("aps")
            writer.beginObject()
            if let alert {
                writer.key("alert")
                alert.write(to: &writer)
            }
            if let badge = aps.badge {
                writer.key("badge")
                writer.integer(badge)
            }
            if !aps.sound.isEmpty {
                writer.key("sound")
                writer.string(aps.sound)
            }
            if aps.contentAvailable != 0 {
                writer.key("content-available")
                writer.integer(aps.contentAvailable)
            }
            if !aps.category.isEmpty {
                writer.key("category")
                writer.string(aps.category)
            }
            writer.endObject()
            apsWritten = true
        }
        for (key, value) in GoJSONWriter.sortedMap(customValues) {
            if !apsWritten, Array("aps".utf8).lexicographicallyPrecedes(Array(key.utf8)) { writeAPS() }
            writer.key(key)
            writer.interfaceValue(value)
        }
        if !apsWritten { writeAPS() }
        writer.endObject()
        return writer.text
    }

    /// The 202 body: `deviceToken`, `payload`, `identifier`, then `expires` and `priority` when set.
    static func echo(_ notification: ApnsMSNotification, identifier: String, payload: String) -> String {
        var writer = GoJSONWriter(capacity: payload.utf8.count + 160)
        writer.beginObject()
        writer.key("deviceToken")
        writer.string(notification.deviceToken)
        writer.key("payload")
        writer.raw(payload)
        writer.key("identifier")
        writer.string(identifier)
        if let expires = notification.expires {
            writer.key("expires")
            writer.string(expires.text)
        }
        if notification.priority != 0 {
            writer.key("priority")
            writer.integer(notification.priority)
        }
        writer.endObject()
        return writer.text
    }
}

extension UInt8 {
    /// `0-9`, `a-f`, `A-F`.
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
