import AsyncHTTPClient
import NIOCore
import NIOSSL

/// The one way the AsyncHTTPClient-based providers (webhooks, Web Push, WNS, MPNS, legacy GCM, FCM's token
/// exchange) build their HTTP client, so that redirects, timeouts and connection retries are decided in one place.
public enum OutboundHTTPClient {
    /// How one provider's client connects and pools its connections.
    public struct Settings: Sendable {
        /// Time allowed to establish a connection. Default 10 s.
        public var connectTimeout: Duration
        /// Longest wait for the next bytes of a response; `nil` leaves only the deadline each request is sent
        /// with. Default `nil`.
        public var readTimeout: Duration?
        /// HTTP/1.1 connections kept per host. Default 8 (AsyncHTTPClient's).
        public var maxConnectionsPerHost: Int
        /// The HTTP versions offered. Default `.automatic`: HTTP/2 when the server selects it in ALPN.
        public var httpVersion: HTTPClient.Configuration.HTTPVersion
        /// Whether the client itself retries a connection that failed to establish, until `connectTimeout`.
        /// Default `false`: Herald retries failed deliveries itself, persisted and with backoff, and retrying
        /// inside the client would hold a delivery slot until the connect timeout.
        public var retriesConnectionEstablishment: Bool

        /// Settings with the given values; each omitted one takes its default.
        public init(
            connectTimeout: Duration = .seconds(10),
            readTimeout: Duration? = nil,
            maxConnectionsPerHost: Int = 8,
            httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic,
            retriesConnectionEstablishment: Bool = false
        ) {
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.httpVersion = httpVersion
            self.retriesConnectionEstablishment = retriesConnectionEstablishment
        }
    }

    /// A client with `settings` on the shared event loop group, trusting what `tls` trusts; the caller shuts it down.
    ///
    /// It never follows a redirect (pushd-api.md §10): a destination is input from whoever registered or
    /// configured it, and following a redirect would let it point anywhere. With `egress`, every connection
    /// goes through that guard, which checks the destination's resolved addresses.
    public static func make(_ settings: Settings, tls: TLSConfiguration, egress: EgressGuard? = nil) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(settings.connectTimeout), read: settings.readTimeout.map { TimeAmount($0) }),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: settings.maxConnectionsPerHost)
        )
        configuration.httpVersion = settings.httpVersion
        configuration.connectionPool.retryConnectionEstablishment = settings.retriesConnectionEstablishment
        configuration.proxy = egress?.proxy
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
