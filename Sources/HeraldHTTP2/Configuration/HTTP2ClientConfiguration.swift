import NIOSSL

/// Settings of an ``HTTP2ConnectionPool``: where to connect, how many connections and streams, and the timeouts.
///
/// The defaults suit APNs: a handful of long-lived connections, a deadline on every stream and an
/// idle PING so that silently dead connections are noticed (providers.md §1.7).
public struct HTTP2ClientConfiguration: Sendable {
    /// The host name or IP address to connect to.
    public var host: String

    /// The TCP port to connect to.
    public var port: Int

    /// TLS settings; `nil` speaks cleartext HTTP/2 with prior knowledge (h2c), meant for tests and benchmarks.
    ///
    /// The pool always offers ALPN `h2` (whatever `applicationProtocols` says) and refuses a server
    /// that does not select it.
    public var tls: TLSConfiguration?

    /// The name sent in SNI and `:authority`; defaults to ``host``.
    ///
    /// Useful when connecting to an IP address while the certificate names a host.
    public var serverHostname: String?

    /// The most connections the pool opens at once; it grows up to this while every open one is full.
    public var maxConnections: Int = 4

    /// A local cap on streams per connection, applied on top of the server's `SETTINGS_MAX_CONCURRENT_STREAMS`.
    ///
    /// A server that sets no limit is otherwise unlimited; the cap spreads load over connections.
    public var maxConcurrentStreamsPerConnection: Int = 1000

    /// How long TCP connect, the TLS handshake and the server's first SETTINGS frame may take together.
    public var connectTimeout: Duration = .seconds(10)

    /// The default deadline of a request, from the call to ``HTTP2ConnectionPool/execute(_:deadline:)`` to the end of the response.
    public var streamDeadline: Duration = .seconds(30)

    /// How long a connection may go without reading anything before the pool sends a PING.
    ///
    /// Activity is sampled once per interval, so the PING goes out between one and two intervals
    /// after the last frame was read.
    public var idlePingInterval: Duration = .seconds(60)

    /// How long the server has to answer a PING before the connection is closed and replaced.
    public var pingTimeout: Duration = .seconds(20)

    /// The delays between attempts after connections fail to open.
    public var reconnectBackoff: HTTP2ReconnectBackoff = HTTP2ReconnectBackoff()

    /// Consecutive failed connection attempts, with no connection working, after which requests
    /// stop waiting: the queued ones fail with `connectFailed`, and so does every new one until the
    /// next attempt is due. 0 keeps requests waiting until their deadlines. Default 3.
    ///
    /// A service that refuses connections is then reported within a few backoff periods rather
    /// than at every request's deadline, so callers (Herald's circuit breakers) learn of it soon.
    public var failWaitersAfterConnectFailures: Int = 3

    /// The most requests that may wait for a free stream; beyond it ``HTTP2ConnectionPool/execute(_:deadline:)``
    /// fails at once with a `tooManyQueued` error (back-pressure).
    public var maxQueuedRequests: Int = 100_000

    /// How many times one request is sent again after the server declined it without processing it
    /// (`REFUSED_STREAM`, or a stream above a GOAWAY's last stream ID).
    public var maxTransparentRetries: Int = 5

    /// The HTTP/2 implementation the connections use; ``HTTP2Engine/nghttp2`` (libnghttp2) by default,
    /// 1.34 times the fan-out of ``HTTP2Engine/nio`` on the benchmark machine (BENCHMARKS.md, issue 44).
    ///
    /// Both behave the same towards the pool and the server (the same SETTINGS, limits, retries and
    /// timeouts); ``HTTP2Engine/nghttp2`` hands framing, HPACK and flow control to libnghttp2.
    public var engine: HTTP2Engine = .nghttp2

    /// Creates a configuration with default limits and timeouts.
    ///
    /// - Parameters:
    ///   - host: The host name or IP address to connect to.
    ///   - port: The TCP port.
    ///   - tls: TLS settings, or `nil` for cleartext HTTP/2 (h2c).
    public init(host: String, port: Int, tls: TLSConfiguration?) {
        self.host = host
        self.port = port
        self.tls = tls
    }
}
