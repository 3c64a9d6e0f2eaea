import NIOCore
import NIOHPACK
import NIOHTTP2

/// One complete request read from a stream: its header list and (up to a cap) its body.
struct FCMRequest {
    /// Bodies are kept only up to this many bytes: anything longer is far too big for a message anyway.
    static let bodyCap = 65_536

    let streamID: HTTP2StreamID
    let headers: HPACKHeaders
    /// The body, or its first ``bodyCap`` bytes.
    let body: ByteBuffer?
    /// The full body length, even beyond the cap.
    let bodyLength: Int

    /// The value of the first header called `name`.
    func header(_ name: String) -> String? {
        self.headers.first(name: name)
    }
}
