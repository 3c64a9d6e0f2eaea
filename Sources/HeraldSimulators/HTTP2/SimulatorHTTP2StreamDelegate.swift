import NIOCore
import NIOHTTP2

/// Tells a connection when nio-http2 closes one of its streams, so open streams are counted exactly.
///
/// Opening is counted in the stream initializer instead (see ``SimulatorHTTP2Pipeline``), which runs before the
/// stream's frames are delivered and so can refuse a stream before it is served.
struct SimulatorHTTP2StreamDelegate: NIOHTTP2StreamDelegate {
    let connection: NIOLoopBound<SimulatorHTTP2Connection>

    func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {}

    func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
        self.connection.value.streamClosed(id)
    }
}
