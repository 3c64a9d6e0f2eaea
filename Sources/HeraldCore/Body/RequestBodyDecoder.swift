/// Turns a request body into a ``BodyValue`` according to its `Content-Type` (§1.2).
public enum RequestBodyDecoder {
    /// Decodes `bytes` as the media type of `contentType` says.
    ///
    /// * `application/x-www-form-urlencoded` → ``FormBodyDecoder``.
    /// * `application/json` → ``JSONBodyParser``; the value must be an object, else
    ///   ``BodyDecodingError/invalidJSON``. An empty body is `{}` (body-parser skipped
    ///   empty bodies); whitespace alone is malformed, as it was for body-parser.
    /// * Any other or no media type → an empty object.
    ///
    /// Parameters (`charset=…`) are ignored and the media type is matched without regard to case.
    public static func decode(_ bytes: [UInt8], contentType: String?) throws(BodyDecodingError) -> BodyValue {
        switch mediaType(of: contentType) {
        case "application/x-www-form-urlencoded":
            return try FormBodyDecoder.decode(bytes)
        case "application/json":
            if bytes.isEmpty { return .object([]) }
            guard let value = try? JSONBodyParser.parse(bytes), case .object = value else {
                throw .invalidJSON
            }
            return value
        default:
            return .object([])
        }
    }

    /// The lower-cased `type/subtype` of a `Content-Type` header, without parameters.
    static func mediaType(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        let essence = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }
        let trimmed = essence.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var end = trimmed.endIndex
        while end > trimmed.startIndex {
            let previous = trimmed.index(before: end)
            guard trimmed[previous] == UInt8(ascii: " ") || trimmed[previous] == UInt8(ascii: "\t") else { break }
            end = previous
        }
        let lowered = trimmed[trimmed.startIndex..<end].map { byte in
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
        }
        return String(decoding: lowered, as: UTF8.self)
    }
}
