import CNGHTTP2
import NIOHTTP2

extension HTTP2Setting {
    /// The setting as nghttp2 submits it, so that both engines announce the SETTINGS of
    /// ``HTTP2ConnectionSettings/http2``.
    var nghttp2Entry: nghttp2_settings_entry {
        let identifier: nghttp2_settings_id
        switch self.parameter {
        case .headerTableSize: identifier = NGHTTP2_SETTINGS_HEADER_TABLE_SIZE
        case .enablePush: identifier = NGHTTP2_SETTINGS_ENABLE_PUSH
        case .maxConcurrentStreams: identifier = NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS
        case .initialWindowSize: identifier = NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE
        case .maxFrameSize: identifier = NGHTTP2_SETTINGS_MAX_FRAME_SIZE
        case .maxHeaderListSize: identifier = NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE
        case .enableConnectProtocol: identifier = NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL
        default: preconditionFailure("no nghttp2 identifier for the HTTP/2 setting \(self.parameter)")
        }
        return nghttp2_settings_entry(settings_id: Int32(identifier.rawValue), value: UInt32(clamping: self.value))
    }
}
