/// Strict UTF-8 validation over raw bytes (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
///
/// Hand-written because `String(validating:as:)` is not available on every
/// platform the package declares, and `String(decoding:as:)` silently repairs.
enum UTF8Validation {
    /// Whether `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F  // U+D800...U+DFFF are not scalars
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= lower, second <= upper else { return false }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                return false
            }
            index += length
        }
        return true
    }

    /// Whether `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }
}
