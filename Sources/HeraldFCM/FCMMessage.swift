import HeraldCore
import NIOCore

/// A notification rendered for FCM once per variant: the send body with the device token left out.
///
/// The body starts `{"message":{"token":"` and the rendered part follows the token, so a send only copies the
/// two parts around the escaped token instead of rendering JSON per device.
public struct FCMMessage: Sendable, Equatable {
    /// What every send body starts with.
    static let prefix: [UInt8] = Array(#"{"message":{"token":""#.utf8)

    /// Everything after the token: its closing quote, the data, the per-platform blocks, and the closing braces.
    public let suffix: [UInt8]
    /// For a message to a topic or a condition instead of a device: the whole body, the
    /// delivery's token being only its label in Herald's records.
    let fixedBody: [UInt8]?

    /// Creates a message from the text that follows the token.
    init(suffix: [UInt8]) {
        self.suffix = suffix
        self.fixedBody = nil
    }

    /// A message whose target is in its body (`topic` or `condition`).
    init(fixedBody: [UInt8]) {
        self.suffix = []
        self.fixedBody = fixedBody
    }

    /// The complete `messages:send` body for `token`.
    public func body(token: String) -> ByteBuffer {
        if let fixedBody { return ByteBuffer(bytes: fixedBody) }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(Self.prefix.count + token.utf8.count + suffix.count)
        buffer.writeBytes(Self.prefix)
        // Stored tokens have no control characters (see OpaquePushToken); quotes and
        // backslashes still need escaping, and JSONWriter does that.
        if token.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            buffer.writeString(token)
        } else {
            let quoted = JSONWriter.quoted(token).utf8
            buffer.writeBytes(quoted.dropFirst().dropLast())
        }
        buffer.writeBytes(suffix)
        return buffer
    }

    /// The body for `token` as text, for logs and tests.
    public func text(token: String) -> String {
        String(buffer: body(token: token))
    }
}
