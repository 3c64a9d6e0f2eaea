import NIOCore
import NIOHPACK
import NIOHTTP2

/// One complete request read from a simulator's HTTP/2 stream: its header list and (up to a cap) its body.
struct SimulatorHTTP2Request {
    let streamID: HTTP2StreamID
    let headers: HPACKHeaders
    /// The body; `nil` when there was none or when it was longer than the processor's
    /// ``SimulatorHTTP2RequestProcessor/bodyCap``.
    let body: ByteBuffer?
    /// The full body length, even beyond the cap.
    let bodyLength: Int

    /// The value of the first header called `name`.
    func header(_ name: String) -> String? {
        self.headers.first(name: name)
    }
}
