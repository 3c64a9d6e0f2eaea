/// The host part of a subscriber-supplied URL, as bulkheads key destinations by it.
public enum DestinationHost {
    /// `host[:port]` of an absolute URL, lower-cased and without user information; `nil` when
    /// `url` has no `scheme://authority`.
    ///
    /// Hand-parsed over the URL's bytes rather than with `URLComponents` (or the generic
    /// `firstRange(of:)`, which showed in registration profiles): it runs for every registration
    /// and every delivery to a webhook or Web Push endpoint, and only needs the authority, which
    /// tokens were validated to have.
    public static func of(_ url: String) -> String? {
        var url = url
        return url.withUTF8 { of(bytes: $0) }
    }

    private static func of(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
        var index = 0
        var authorityStart: Int?
        while index + 2 < bytes.count {
            if bytes[index] == colon, bytes[index + 1] == slash, bytes[index + 2] == slash {
                authorityStart = index + 3
                break
            }
            index += 1
        }
        guard let authorityStart else { return nil }
        var hostStart = authorityStart
        var end = authorityStart
        var ascii = true
        while end < bytes.count {
            let byte = bytes[end]
            if byte == slash || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { hostStart = end + 1 }
            if byte >= 0x80 { ascii = false }
            end += 1
        }
        guard hostStart < end else { return nil }
        let host = UnsafeBufferPointer(rebasing: bytes[hostStart..<end])
        guard ascii else { return String(decoding: host, as: UTF8.self).lowercased() }
        return String(unsafeUninitializedCapacity: host.count) { buffer in
            for (offset, byte) in host.enumerated() {
                buffer[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            }
            return host.count
        }
    }
}
