import HeraldConfiguration
import HeraldCore
import HummingbirdCore
import HummingbirdHTTP2
import NIOCore

extension HTTPServerBuilder {
    /// A TLS listener presenting `credentials`' current identity: TLS 1.2 or later, ALPN `h2`
    /// (HTTP/2 clients get HTTP/2) and `http/1.1`.
    ///
    /// - Parameters:
    ///   - credentials: The certificate and key, reloadable.
    ///   - configuration: HTTP/2 connection settings; its stream configuration serves HTTP/1.1 connections too.
    ///     Responses on HTTP/2 streams lose their connection-specific header fields (``HTTP2ConnectionHeaderFilter``).
    ///   - handshakeDeadline: How long a client may take to complete its TLS handshake.
    public static func heraldTLS(
        credentials: TLSCredentials, configuration: HTTP2UpgradeChannel.Configuration, handshakeDeadline: Duration
    ) -> HTTPServerBuilder {
        let tlsConfiguration = credentials.serverConfiguration()
        let filtered = {
            var filtered = configuration
            let handlers = configuration.streamConfiguration.additionalChannelHandlers
            // First, so that it sees each response head after every other handler has had its say.
            filtered.streamConfiguration.additionalChannelHandlers = { [HTTP2ConnectionHeaderFilter()] + handlers() }
            return filtered
        }()
        return HTTPServerBuilder { responder in
            TLSServerChannel(
                upgrade: try HTTP2UpgradeChannel(tlsConfiguration: tlsConfiguration, configuration: filtered, responder: responder),
                handshakeDeadline: TimeAmount(handshakeDeadline))
        }
    }
}

extension HTTPServerBuilder {
    /// The channel of a front-end's own listener (apns-ms, UnifiedPush): with `tls`, a TLS
    /// listener (``heraldTLS(credentials:configuration:handshakeDeadline:)``) with `server`'s idle
    /// and handshake timeouts, and its credentials for a ``TLSReloadService``; without, `plain`.
    public static func frontEndListener(
        tls: HeraldConfiguration.ListenerTLS?, server: HeraldConfiguration.Server, plain: () -> HTTPServerBuilder
    ) throws(ConfigurationError) -> (channel: HTTPServerBuilder, credentials: TLSCredentials?) {
        guard let tls else { return (plain(), nil) }
        let credentials = try TLSCredentials(settings: tls)
        let channel = heraldTLS(
            credentials: credentials,
            configuration: .init(idleTimeout: server.idleTimeout, streamConfiguration: .init(idleTimeout: TimeAmount(server.idleTimeout))),
            handshakeDeadline: server.headerTimeout)
        return (channel, credentials)
    }
}
