import HeraldCore
import Hummingbird
import NIOCore

/// The request context of Herald's HTTP API: Hummingbird's core context plus the peer address,
/// which the ACL rules need.
public struct HeraldRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's address, as the socket saw it.
    public let remoteAddress: SocketAddress?
    /// The scopes of the API token the request was authorized with; `nil`: a caller restricted by
    /// nothing beyond the route's realm (a Basic user, an ACL, an open server).
    public var scopes: TokenScopes?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.scopes = nil
    }

    /// Bodies are read with an explicit limit in each handler.
    public var maxUploadSize: Int { PushdRoutes.maxBodySize }
}
