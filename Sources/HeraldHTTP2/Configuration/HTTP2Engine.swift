/// The HTTP/2 implementation a pool's connections speak through.
///
/// Both engines sit behind the same pool, connection logic and stream handling (readiness, the
/// server's stream limit, GOAWAY, transparent retries, deadlines, keepalive PING); they differ in
/// who frames, compresses headers (HPACK) and keeps flow-control windows. NIO keeps the socket and
/// TLS either way.
public enum HTTP2Engine: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// swift-nio-http2: frames as Swift values through `NIOHTTP2Handler`.
    case nio
    /// libnghttp2 (the HTTP/2 library of curl and h2load) through its session API: bytes in, bytes
    /// out. The default.
    case nghttp2

    /// The engine's configuration spelling, `nio` or `nghttp2`.
    public var description: String {
        self.rawValue
    }
}
