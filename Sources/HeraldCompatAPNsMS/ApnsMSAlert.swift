import HeraldCore

/// `aps.alert` as apns-ms understood it (compat.md §4.2, §4.3 check 3, §4.5): a string (kept even
/// when empty) or an alert dictionary of known keys.
enum ApnsMSAlert: Sendable, Equatable {
    /// The dictionary's string keys and array-of-string keys, in the order they are written.
    static let keys: [(name: String, isList: Bool)] = [
        ("title", false), ("body", false), ("title-loc-key", false), ("title-loc-args", true), ("action-loc-key", false),
        ("loc-key", false), ("loc-args", true), ("launch-image", false),
    ]

    case text(String)
    /// The values read, by key: a string or a list of strings.
    case dictionary(strings: [String: String], lists: [String: [String]])

    /// Reads a decoded `alert`; throws ``ApnsMSError/invalidAlert`` for a number, a boolean, an
    /// array, or a dictionary with a known key of the wrong type (`null` counts as empty).
    ///
    /// apns-ms lost the six hyphenated keys on decoding (malformed struct tags); Herald keeps them.
    init(_ value: BodyValue) throws(ApnsMSError) {
        switch value {
        case .string(let text):
            self = .text(text)
        case .object(let members):
            var strings: [String: String] = [:]
            var lists: [String: [String]] = [:]
            let names = Self.keys.map(\.name)
            for (key, value) in members {
                guard let name = GoDecoder.field(key, in: names) else { continue }
                let isList = Self.keys.first { $0.name == name }?.isList ?? false
                switch (isList, value) {
                case (_, .null):
                    strings[name] = nil
                    lists[name] = nil
                case (false, .string(let text)):
                    strings[name] = text
                case (true, .array(let elements)):
                    var texts: [String] = []
                    for element in elements {
                        switch element {
                        case .string(let text): texts.append(text)
                        case .null: texts.append("")
                        default: throw .invalidAlert
                        }
                    }
                    lists[name] = texts
                default:
                    throw .invalidAlert
                }
            }
            self = .dictionary(strings: strings, lists: lists)
        default:
            throw .invalidAlert
        }
    }

    /// Writes it: a string as it is; a dictionary's non-empty keys in ``keys`` order (`{}` when none).
    func write(to writer: inout GoJSONWriter) {
        switch self {
        case .text(let text):
            writer.string(text)
        case .dictionary(let strings, let lists):
            writer.beginObject()
            for (name, isList) in Self.keys {
                if isList {
                    guard let list = lists[name], !list.isEmpty else { continue }
                    writer.key(name)
                    writer.beginArray()
                    for text in list { writer.string(text) }
                    writer.endArray()
                } else {
                    guard let text = strings[name], !text.isEmpty else { continue }
                    writer.key(name)
                    writer.string(text)
                }
            }
            writer.endObject()
        }
    }
}
