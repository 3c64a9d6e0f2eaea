/// Lower-case hexadecimal text of bytes: how APNs device tokens are written in `:path`
/// (compat.md §1.2), whichever form a front-end received them in.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `bytes` as lower-case hex, two digits each.
    public static func lowercase<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
