import AsyncHTTPClient
import HeraldWebhook
import NIOSSL

/// The HTTP/1.1 client settings the `wns` and `mpns` providers share.
public struct ProviderHTTPSettings: Sendable {
    /// Time allowed to establish a connection. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// Time allowed for one request, response included. Default 30 s.
    public var requestTimeout: Duration = .seconds(30)
    /// Deliveries in flight at once. Default 256.
    public var maxConcurrentDeliveries = 256
    /// Connections kept per host: channels of one region share a host (`dm3p.notify.windows.com`). Default 64.
    public var maxConnectionsPerHost = 64

    /// The defaults.
    public init() {}

    /// A client with these settings trusting `tls`'s roots, connecting through `egress` when given; it never
    /// follows redirects (pushd-api.md §10).
    func makeClient(tls: TLSConfiguration, egress: EgressGuard? = nil) -> HTTPClient {
        // WNS speaks HTTP/1.1 only (providers.md §0).
        OutboundHTTPClient.make(
            .init(connectTimeout: connectTimeout, maxConnectionsPerHost: maxConnectionsPerHost, httpVersion: .http1Only), tls: tls,
            egress: egress)
    }
}
