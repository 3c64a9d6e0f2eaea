import HeraldCore

/// The small operations both payload builders share: JSON objects treated as Python dicts, and
/// Sygnal's two ways of cutting a long field.
///
/// Sygnal builds its payloads as Python dicts, so a key set twice keeps its first position and takes
/// the later value; these helpers give ordered ``BodyValue`` members the same meaning, so that the
/// JSON Herald sends has the keys, values and order Sygnal's would.
enum MatrixPayloadFields {
    /// Sets `key` to `value` in `members`: in place when the key is there (as a dict assignment
    /// keeps its position), appended otherwise.
    static func set(_ key: String, _ value: BodyValue, in members: inout [(key: String, value: BodyValue)]) {
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key: key, value: value))
        }
    }

    /// The value stored under `key`, if any.
    static func value(_ key: String, in members: [(key: String, value: BodyValue)]) -> BodyValue? {
        members.last(where: { $0.key == key })?.value
    }

    /// `value` with every object's duplicate keys merged, at every depth: the first position and the
    /// last value, which is what Python's `json.loads` makes of them.
    static func deduplicated(_ value: BodyValue) -> BodyValue {
        switch value {
        case .object(let members): .object(deduplicated(members))
        case .array(let elements): .array(elements.map { deduplicated($0) })
        default: value
        }
    }

    /// `members` without duplicate keys, as the single-value form merges them.
    static func deduplicated(_ members: [(key: String, value: BodyValue)]) -> [(key: String, value: BodyValue)] {
        var result: [(key: String, value: BodyValue)] = []
        result.reserveCapacity(members.count)
        // A dictionary of positions rather than `set`: a hostile body may hold many thousands of keys.
        var positions: [String: Int] = [:]
        for (key, value) in members {
            let merged = deduplicated(value)
            if let position = positions[key] {
                result[position].value = merged
            } else {
                positions[key] = result.count
                result.append((key: key, value: merged))
            }
        }
        return result
    }

    /// `text` cut to its first `limit` Unicode scalars.
    ///
    /// Sygnal slices Python strings (`text[0:1024]`), which counts code points, so Herald counts
    /// scalars rather than Swift's grapheme clusters to cut in the same place.
    static func prefix(_ text: String, scalars limit: Int) -> String {
        var count = 0
        var end = text.unicodeScalars.startIndex
        while end != text.unicodeScalars.endIndex {
            guard count < limit else { break }
            count += 1
            text.unicodeScalars.formIndex(after: &end)
        }
        guard end != text.unicodeScalars.endIndex else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars[..<end]))
    }

    /// The ellipsis Sygnal appends to a field it cut by bytes.
    static let ellipsis = "…"

    /// `text` when it is at most `limit` UTF-8 bytes, else as many whole scalars as fit in `limit`
    /// bytes together with a trailing `…`.
    ///
    /// Sygnal's `truncate_str` (`gcmpushkin.py`): it keeps `limit − 3` bytes, backs off to the start
    /// of a character cut in two, and appends the three-byte `…`.
    static func prefix(_ text: String, utf8Bytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let budget = limit - ellipsis.utf8.count
        var kept = 0
        var end = text.unicodeScalars.startIndex
        while end != text.unicodeScalars.endIndex {
            let width = utf8Width(text.unicodeScalars[end])
            guard kept + width <= budget else { break }
            kept += width
            text.unicodeScalars.formIndex(after: &end)
        }
        return String(String.UnicodeScalarView(text.unicodeScalars[..<end])) + ellipsis
    }

    /// How many bytes `scalar` takes in UTF-8.
    static func utf8Width(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case ..<0x80: 1
        case ..<0x800: 2
        case ..<0x1_0000: 3
        default: 4
        }
    }

    /// Whether Python counts `value` as true: what Sygnal's `if data.get("room_id")` tests.
    static func isTruthy(_ value: BodyValue?) -> Bool {
        switch value {
        case nil, .null?: false
        case .string(let text)?: !text.isEmpty
        case .bool(let flag)?: flag
        case .number(let literal)?: (Double(literal) ?? 1) != 0
        case .array(let elements)?: !elements.isEmpty
        case .object(let members)?: !members.isEmpty
        }
    }
}
