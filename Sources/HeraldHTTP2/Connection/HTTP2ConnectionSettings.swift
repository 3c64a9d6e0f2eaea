import Logging
import NIOCore
import NIOHTTP2
import NIOSSL

/// Everything a pool's connections share, computed once: engine, TLS context, header template,
/// HTTP/2 settings and timeouts.
struct HTTP2ConnectionSettings: Sendable {
    /// The HTTP/2 implementation each connection uses.
    let engine: HTTP2Engine
    let host: String
    let port: Int
    /// The TLS context; `nil` for cleartext or when ``tlsConfigurationError`` is set.
    let sslContext: NIOSSLContext?
    /// Why the TLS configuration is unusable; every connection attempt then fails with it.
    let tlsConfigurationError: String?
    let sniHostname: String?
    let connectTimeout: TimeAmount
    let idlePingInterval: TimeAmount
    let pingTimeout: TimeAmount
    let maxConcurrentStreamsCap: Int
    let maxTransparentRetries: Int
    let headerTemplate: HTTP2HeaderTemplate
    /// nio-http2's configuration; its initial SETTINGS are also the nghttp2 engine's, so that both
    /// engines announce the same.
    let http2: NIOHTTP2Handler.Configuration

    /// Derives the shared settings from a pool configuration.
    init(configuration: HTTP2ClientConfiguration) {
        self.engine = configuration.engine
        self.host = configuration.host
        self.port = configuration.port
        self.connectTimeout = TimeAmount(configuration.connectTimeout)
        self.idlePingInterval = TimeAmount(max(configuration.idlePingInterval, .milliseconds(10)))
        self.pingTimeout = TimeAmount(max(configuration.pingTimeout, .milliseconds(10)))
        self.maxConcurrentStreamsCap = max(1, configuration.maxConcurrentStreamsPerConnection)
        self.maxTransparentRetries = max(0, configuration.maxTransparentRetries)

        let name = configuration.serverHostname ?? configuration.host
        // SNI must not carry an IP address (RFC 6066 §3).
        let isIPAddress = (try? SocketAddress(ipAddress: name, port: 0)) != nil
        self.sniHostname = isIPAddress ? nil : name

        if var tls = configuration.tls {
            tls.applicationProtocols = ["h2"]
            do {
                self.sslContext = try NIOSSLContext(configuration: tls)
                self.tlsConfigurationError = nil
            } catch {
                self.sslContext = nil
                self.tlsConfigurationError = "invalid TLS configuration: \(error)"
            }
        } else {
            self.sslContext = nil
            self.tlsConfigurationError = nil
        }

        let defaultPort = configuration.tls == nil ? 80 : 443
        let authority = configuration.port == defaultPort ? name : "\(name):\(configuration.port)"
        self.headerTemplate = HTTP2HeaderTemplate(scheme: configuration.tls == nil ? "http" : "https", authority: authority)

        var http2 = NIOHTTP2Handler.Configuration()
        http2.connection.initialSettings = [
            HTTP2Setting(parameter: .enablePush, value: 0),
            // The server may not open streams towards us (push is off anyway).
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 0),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
        ]
        // Frames can still arrive for streams we reset at their deadline; remember enough of them
        // that such late frames are ignored instead of being treated as a protocol error.
        http2.connection.maximumRecentlyResetStreams = max(32, self.maxConcurrentStreamsCap)
        // The reset limits protect servers from abusive clients; our peer is a trusted push service
        // that legitimately refuses many streams when it lowers its limit (providers.md §1.7).
        http2.stream.streamResetFrameRateLimit.maximumCount = 1_000_000
        http2.stream.streamErrorRateLimit.maximumCount = 1_000_000
        // Header validation scans every name and value of every request and response byte by byte
        // (a few per cent of the pool's time). The pool builds request fields from checked parts
        // (HTTPTypes field names and values, tokens validated at registration), and of a response it
        // reads only `:status`, parsed as a number, and fields through HTTPTypes, which checks them.
        http2.connection.headerBlockValidation = .disabled
        // Likewise the content-length check parses the field of every header block: requests carry
        // none, and a response body is read whole to END_STREAM whatever length it announced.
        http2.connection.contentLengthValidation = .disabled
        self.http2 = http2
    }
}
