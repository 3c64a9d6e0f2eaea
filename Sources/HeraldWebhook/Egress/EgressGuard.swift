import AsyncHTTPClient
import HeraldCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// A `CONNECT` proxy on the loopback interface through which a provider reaches the destinations its subscribers
/// named, so that every connection is checked against a ``DestinationPolicy`` after DNS.
///
/// Checking a URL's host when it is registered cannot stop a name that resolves, or later re-resolves, to a
/// forbidden address; and AsyncHTTPClient resolves names itself, with no hook. Routing the client through this
/// proxy puts the resolution and the check in one place, at the moment a connection is opened, whatever the
/// scheme: TLS runs end to end inside the tunnel, so certificates are still verified against the URL's host.
/// Redirects stay disallowed by the client, so a destination cannot bounce a request elsewhere.
///
/// A destination the policy forbids is answered `403`, which the client reports as
/// `HTTPClientError.invalidProxyResponse`: ``isRefusal(_:)``. A destination that cannot be resolved or reached
/// gets its connection closed, a transient failure as it would be without the guard.
public final class EgressGuard: Sendable {
    /// What one guard enforces.
    struct Settings: Sendable {
        /// Where connections may go.
        var policy: DestinationPolicy
        /// Time allowed to open a connection to a destination.
        var connectTimeout: Duration
        /// The `Proxy-Authorization` value the client must send.
        var expectedAuthorization: String
    }

    /// The status line of a refusal.
    static let refusalStatusLine = "403 Destination Not Allowed"

    /// The policy every connection is checked against.
    public var policy: DestinationPolicy { settings.policy }

    private let settings: Settings
    private let credentials: (user: String, password: String)
    private let serverChannel: any Channel

    private init(settings: Settings, credentials: (user: String, password: String), serverChannel: any Channel) {
        self.settings = settings
        self.credentials = credentials
        self.serverChannel = serverChannel
    }

    /// Starts a guard enforcing `policy` on an ephemeral loopback port; ``close()`` stops it.
    ///
    /// - Parameter connectTimeout: time allowed to open each connection to a destination.
    public static func start(policy: DestinationPolicy, connectTimeout: Duration, logger: Logger) async throws -> EgressGuard {
        // Random credentials known only to this process keep other local users from using the port as a proxy.
        // SystemRandomNumberGenerator draws from the kernel's CSPRNG.
        var generator = SystemRandomNumberGenerator()
        let password = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
        let credentials = (user: "herald", password: password)
        let settings = Settings(
            policy: policy, connectTimeout: connectTimeout,
            expectedAuthorization: HTTPClient.Authorization.basic(username: credentials.user, password: password).headerValue)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: EgressConnectHandler.decoderName)
                    try pipeline.addHandler(EgressConnectHandler(settings: settings, logger: logger))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return EgressGuard(settings: settings, credentials: credentials, serverChannel: channel)
    }

    /// The proxy setting that routes an HTTP client through this guard.
    public var proxy: HTTPClient.Configuration.Proxy {
        .server(
            host: "127.0.0.1", port: serverChannel.localAddress?.port ?? 0,
            authorization: .basic(username: credentials.user, password: credentials.password))
    }

    /// Whether `error`, from a client routed through a guard, is the guard's refusal of a forbidden destination.
    public static func isRefusal(_ error: any Error) -> Bool {
        (error as? HTTPClientError) == .invalidProxyResponse
    }

    /// Stops accepting connections; tunnels already open close with their clients.
    public func close() async {
        try? await serverChannel.close()
    }
}
