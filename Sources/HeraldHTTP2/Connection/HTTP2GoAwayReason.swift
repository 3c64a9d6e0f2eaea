import NIOCore
import NIOHTTP2

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renders a GOAWAY frame's error code and debug data as a short reason for errors and logs.
///
/// APNs puts JSON such as `{"reason":"Shutdown"}` in the debug data (providers.md §1.7); other
/// servers put plain text or nothing.
enum HTTP2GoAwayReason {
    private struct APNsBody: Decodable {
        var reason: String
    }

    /// The most debug text kept, so that a misbehaving server cannot flood logs.
    private static let maxTextLength = 256

    /// The reason of a GOAWAY frame: the JSON `reason` if present, else the debug text, prefixed by
    /// the error code unless it is `NO_ERROR`.
    ///
    /// - Parameters:
    ///   - errorCode: The frame's error code.
    ///   - debugData: The frame's opaque debug data.
    static func describe(errorCode: HTTP2ErrorCode, debugData: ByteBuffer?) -> String {
        let detail = debugData.flatMap { Self.reason(fromDebugData: $0) }
        switch (errorCode == .noError, detail) {
        case (true, let detail?):
            return detail
        case (true, nil):
            return errorCode.name
        case (false, let detail?):
            return "\(errorCode.name): \(detail)"
        case (false, nil):
            return errorCode.name
        }
    }

    private static func reason(fromDebugData data: ByteBuffer) -> String? {
        guard data.readableBytes > 0 else { return nil }
        let bytes = data.readableBytesView
        if bytes.first == UInt8(ascii: "{"),
            let body = try? JSONDecoder().decode(APNsBody.self, from: Data(bytes))
        {
            return String(body.reason.prefix(Self.maxTextLength))
        }
        let text = String(decoding: bytes.prefix(Self.maxTextLength), as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}
