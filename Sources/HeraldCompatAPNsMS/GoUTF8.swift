/// UTF-8 repaired as Go repairs it (`utf8.DecodeRune`): every byte that does not start a valid
/// sequence becomes one U+FFFD, where Swift's own repair replaces a whole broken sequence once.
enum GoUTF8 {
    /// U+FFFD in UTF-8.
    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Appends `raw` to `output`, each invalid byte replaced by U+FFFD.
    static func appendRepaired(_ raw: [UInt8], to output: inout [UInt8]) {
        var index = 0
        while index < raw.count {
            let length = validSequenceLength(raw, at: index)
            if length == 0 {
                output.append(contentsOf: replacement)
                index += 1
            } else {
                output.append(contentsOf: raw[index..<index + length])
                index += length
            }
        }
    }

    /// The length of the valid sequence starting at `index` (no overlong forms, no surrogates,
    /// nothing above U+10FFFF), or 0.
    static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch first {
        case 0x00...0x7F:
            return 1
        case 0xC2...0xDF:
            return continuation(1) ? 2 : 0
        case 0xE0:
            return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : 0
        case 0xED:
            return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0:
            return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4:
            return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default:
            return 0
        }
    }
}
