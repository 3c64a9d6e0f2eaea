import OrderedCollections

/// A title, message or provider template, split once into literal text and placeholders (§5.3).
///
/// Placeholders are found exactly as rs/pushd's `/\$\{(.*?)\}/g` found them: left
/// to right, the shortest `${…}` that does not cross a line terminator (JavaScript's
/// `.` does not match `\n`, `\r`, U+2028 or U+2029), in one pass, so replaced text
/// is never scanned again. A `$` not followed by `{`, and a `${` with no closing
/// `}`, are literal text.
///
/// | placeholder | rendered as | otherwise |
/// |---|---|---|
/// | `${event.name}` | the event name | — |
/// | `${var.<key>}` | `vars[<key>]` | `The ${var.<key>} does not exist` |
/// | `${data.<key>}` | `data[<key>]` | `The ${data.<key>} does not exist` |
/// | anything else (including `${var}` without a dot) | — | `Invalid variable type for ${…}` |
///
/// `<key>` is everything after the first dot. The first failing placeholder,
/// left to right, is the error.
public struct Template: Sendable, Hashable, CustomStringConvertible {
    private enum Segment: Sendable, Hashable {
        case literal(String)
        case eventName
        case variable(key: String, placeholder: String)
        case datum(key: String, placeholder: String)
        case invalid(placeholder: String)
    }

    /// The template text as given.
    public let source: String
    /// Empty when the source has no placeholder, so rendering returns ``source`` as is.
    private let segments: [Segment]

    /// Compiles `source`.
    public init(_ source: String) {
        self.source = source
        self.segments = Self.compile(source)
    }

    /// Whether the template has no placeholder, so that it renders to ``source`` whatever the context.
    public var isLiteral: Bool { segments.isEmpty }

    /// The template text as given.
    public var description: String { source }

    /// Renders the template for a publish to `event` with the payload's `data.*` and `var.*` values (keys after the first dot).
    public func render(
        event: String,
        data: OrderedDictionary<String, String>,
        vars: OrderedDictionary<String, String>
    ) throws(PayloadError) -> String {
        if segments.isEmpty { return source }
        var result = ""
        result.reserveCapacity(source.utf8.count)
        for segment in segments {
            switch segment {
            case .literal(let text):
                result += text
            case .eventName:
                result += event
            case .variable(let key, let placeholder):
                guard let value = vars[key] else { throw .missingVariable(placeholder) }
                result += value
            case .datum(let key, let placeholder):
                guard let value = data[key] else { throw .missingVariable(placeholder) }
                result += value
            case .invalid(let placeholder):
                throw .invalidVariableType(placeholder)
            }
        }
        return result
    }

    /// Templates with the same source are the same template; the compiled form follows from it.
    public static func == (lhs: Template, rhs: Template) -> Bool { lhs.source == rhs.source }

    /// Hashes the source only, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }

    private static func compile(_ source: String) -> [Segment] {
        let bytes = Array(source.utf8)
        let count = bytes.count
        var segments: [Segment] = []
        var literalStart = 0
        var index = 0
        while index + 1 < count {
            guard bytes[index] == UInt8(ascii: "$"), bytes[index + 1] == UInt8(ascii: "{") else {
                index += 1
                continue
            }
            var cursor = index + 2
            var closing: Int?
            var blockedAt: Int?
            while cursor < count {
                let byte = bytes[cursor]
                if byte == UInt8(ascii: "}") {
                    closing = cursor
                    break
                }
                if let length = lineTerminatorLength(bytes, at: cursor) {
                    blockedAt = cursor + length
                    break
                }
                cursor += 1
            }
            guard let closing else {
                // No later `${` before the same terminator (or the end) can match either,
                // so the scan resumes past it: linear time even for `${${${…`.
                guard let blockedAt else { break }
                index = blockedAt
                continue
            }
            if literalStart < index {
                segments.append(.literal(String(decoding: bytes[literalStart..<index], as: UTF8.self)))
            }
            segments.append(placeholder(String(decoding: bytes[(index + 2)..<closing], as: UTF8.self)))
            index = closing + 1
            literalStart = index
        }
        if segments.isEmpty { return [] }
        if literalStart < count {
            segments.append(.literal(String(decoding: bytes[literalStart..<count], as: UTF8.self)))
        }
        return segments
    }

    /// The byte length of a JavaScript line terminator at `index`, if there is one.
    private static func lineTerminatorLength(_ bytes: [UInt8], at index: Int) -> Int? {
        switch bytes[index] {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            return 1
        case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
            return 3  // U+2028, U+2029
        default:
            return nil
        }
    }

    private static func placeholder(_ text: String) -> Segment {
        if text == "event.name" { return .eventName }
        guard let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return .invalid(placeholder: text) }
        let key = String(text[text.utf8.index(after: dot)...])
        switch text[..<dot] {
        case "var": return .variable(key: key, placeholder: text)
        case "data": return .datum(key: key, placeholder: text)
        default: return .invalid(placeholder: text)
        }
    }
}
