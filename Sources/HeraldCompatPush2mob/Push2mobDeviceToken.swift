import HeraldCore

/// An APNs device token as push2mob took it: 64 hex characters, or the 32 bytes in standard
/// base64 (compat.md §3.3 checks 5 to 7).
struct Push2mobDeviceToken: Sendable, Equatable {
    /// The token's bytes.
    let bytes: [UInt8]

    /// The standard base64 alphabet.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values: [UInt8: UInt8] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, UInt8($0)) })

    /// Reads a token field.
    init(_ field: Substring) throws(Push2mobRefusal) {
        if field.count == 64 {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(32)
            var index = field.startIndex
            while index < field.endIndex {
                let next = field.index(index, offsetBy: 2)
                let pair = field[index..<next]
                guard pair.allSatisfy(\.isHexDigit), let byte = UInt8(pair, radix: 16) else { throw .notHexPair(pair) }
                bytes.append(byte)
                index = next
            }
            self.bytes = bytes
            return
        }
        guard let decoded = Self.base64Decode(field) else { throw .wrongBase64(field) }
        guard decoded.count == 32 else { throw .wrongTokenLength(decoded.count, field) }
        bytes = decoded
    }

    /// Lowercase hex: the token APNs's path takes.
    var hex: String { Hex.lowercase(bytes) }

    /// Standard base64 with padding.
    var base64: String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                if position <= chunk.count {
                    text.append(Self.alphabet[Int((value >> (18 - 6 * UInt32(position))) & 0x3F)])
                } else {
                    text.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Strict standard base64: the alphabet, a length that is a multiple of 4, at most two `=` at the end.
    static func base64Decode(_ text: Substring) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard !characters.isEmpty, characters.count % 4 == 0 else { return nil }
        let padding = characters.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 4 * 3)
        var accumulator: UInt32 = 0
        for (offset, character) in characters.dropLast(padding).enumerated() {
            guard let value = values[character] else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            if offset % 4 == 3 {
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                bytes.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
            }
        }
        switch padding {
        case 1:
            bytes.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            bytes.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        case 2:
            bytes.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        default:
            break
        }
        return bytes
    }
}
