import FoundationEssentials
import HeraldCore

/// When a publish is due, from its payload's `at` (whole Unix seconds, or an RFC 3339 time) or
/// `delay` (whole seconds from now), with a precision of one second.
struct PublishSchedule: Sendable, Equatable {
    /// Unix seconds when it is due.
    var dueAt: Int64

    /// The payload's schedule, if it asks for one later than `now`, and the payload without
    /// `at` and `delay` (they are not part of the notification).
    ///
    /// A time in the past (or now) publishes at once.
    /// - Throws: ``IntakeError/Code/invalidRequest`` for both keys at once, a value that is not a
    ///   time or a whole number of seconds, or a due time more than `maxAhead` away.
    static func extract(from payload: BodyValue, now: Int64, maxAhead: Duration) throws(IntakeError) -> (PublishSchedule?, BodyValue) {
        guard let members = payload.objectMembers, members.contains(where: { $0.key == "at" || $0.key == "delay" }) else {
            return (nil, payload)
        }
        let at = payload["at"]
        let delay = payload["delay"]
        if at != nil && delay != nil { throw .invalidRequest("Use either `at' or `delay', not both") }
        let dueAt: Int64
        if let at {
            guard let seconds = Self.unixSeconds(at) else { throw .invalidRequest("Invalid value for `at'") }
            dueAt = seconds
        } else {
            guard let delay, let seconds = Self.wholeSeconds(delay) else { throw .invalidRequest("Invalid value for `delay'") }
            dueAt = now + seconds
        }
        if dueAt - now > maxAhead.components.seconds {
            throw .invalidRequest("The delivery time is more than \(maxAhead.components.seconds) seconds ahead")
        }
        let rest = BodyValue.object(members.filter { $0.key != "at" && $0.key != "delay" })
        return (dueAt > now ? PublishSchedule(dueAt: dueAt) : nil, rest)
    }

    /// A whole number of seconds: a JSON number (``BodyValue/wholeNumber``, so `60.0` too, as JSON
    /// Schema's integer), or a string of decimal digits; at most 12 digits either way.
    static func wholeSeconds(_ value: BodyValue) -> Int64? {
        switch value {
        case .number:
            guard let seconds = value.wholeNumber, (0..<1_000_000_000_000).contains(seconds) else { return nil }
            return seconds
        case .string(let text):
            guard (1...12).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return Int64(text)
        default:
            return nil
        }
    }

    /// `at` as Unix seconds: a whole number of them, or an RFC 3339 time (a fraction rounds up).
    static func unixSeconds(_ value: BodyValue) -> Int64? {
        guard !value.isBool, let text = value.scalarText, !text.isEmpty else { return nil }
        if let seconds = wholeSeconds(value) { return seconds }
        guard case .string = value else { return nil }
        return rfc3339Seconds(text)
    }

    /// An RFC 3339 time as Unix seconds (a fraction rounds up).
    ///
    /// Foundation's ISO 8601 parser reads the form but not all of RFC 3339's range: it refuses
    /// lower-case `t` and `z` and offsets beyond ±18 hours, which RFC 3339 allows up to ±23:59.
    /// So the letters are upper-cased and a numeric offset is applied here, the rest parsed as UTC.
    static func rfc3339Seconds(_ text: String) -> Int64? {
        var local = text.uppercased()
        var offsetSeconds = 0
        if local.hasSuffix("Z") {
            local.removeLast()
        } else {
            let utf8 = Array(local.utf8.suffix(6))
            guard utf8.count == 6, utf8[0] == UInt8(ascii: "+") || utf8[0] == UInt8(ascii: "-"), utf8[3] == UInt8(ascii: ":"),
                let hours = Int(String(decoding: utf8[1...2], as: UTF8.self)), let minutes = Int(String(decoding: utf8[4...5], as: UTF8.self)),
                utf8[1...2].allSatisfy({ (0x30...0x39).contains($0) }), utf8[4...5].allSatisfy({ (0x30...0x39).contains($0) }),
                hours < 24, minutes < 60
            else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (utf8[0] == UInt8(ascii: "-") ? -1 : 1)
            local.removeLast(6)
        }
        local += "Z"
        guard let date = (try? Date(local, strategy: .iso8601)) ?? (try? Date(local, strategy: Self.fractional)) else { return nil }
        return Int64((date.timeIntervalSince1970 - Double(offsetSeconds)).rounded(.up))
    }

    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}

extension BodyValue {
    /// Whether this is a JSON boolean (never a time nor a number of seconds).
    fileprivate var isBool: Bool {
        if case .bool = self { true } else { false }
    }
}
