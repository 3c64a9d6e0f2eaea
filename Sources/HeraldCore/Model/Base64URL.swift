import Foundation

/// Base64url (RFC 4648 §5) without padding, as push tokens, JWTs and ids use it.
public enum Base64URL {
    /// Encodes `bytes` as unpadded base64url.
    ///
    /// By hand rather than through `Data.base64EncodedString()` and three `replacingOccurrences`:
    /// every registration draws an id through here, and Foundation's string searches cost more
    /// than the encoding.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            output.append(alphabet[Int(group & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let group = UInt32(input[index]) << 16
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
        case 2:
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The 64 digits of base64url, in order.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Decodes base64url, tolerating padding; `nil` on any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.hasSuffix("=") { base64.removeLast() }
        let remainder = base64.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return [UInt8](data)
    }
}
