import NIOCore
import NIOHTTP2

/// Tells a connection when nio-http2 closes one of its streams, so open streams are counted exactly.
struct FCMStreamDelegate: NIOHTTP2StreamDelegate {
    let connection: NIOLoopBound<FCMConnectionState>

    func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {}

    func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
        self.connection.value.streamClosed(id)
    }
}
