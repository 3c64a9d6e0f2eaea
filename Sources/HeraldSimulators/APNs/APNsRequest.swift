import NIOCore
import NIOHPACK
import NIOHTTP2

/// One complete request read from a stream: its header list and (up to a cap) its body.
struct APNsRequest {
    /// Bodies are kept only up to this many bytes: anything longer is too large for every push type anyway.
    static let bodyCap = 8192

    let streamID: HTTP2StreamID
    let headers: HPACKHeaders
    /// The body, or its first ``bodyCap`` bytes.
    let body: ByteBuffer?
    /// The full body length, even beyond the cap.
    let bodyLength: Int
}
