import NIOCore
import NIOHTTPTypesHTTP2

extension ChannelPipeline.SynchronousOperations {
    /// Whether the pipeline is an HTTP/2 stream's: it starts with the codec between HTTP/2 frames
    /// and HTTP parts. Handlers shared with HTTP/1.1 connections ask it to stand aside.
    public var isHTTP2Stream: Bool {
        (try? handler(type: HTTP2FramePayloadToHTTPServerCodec.self)) != nil
    }
}
