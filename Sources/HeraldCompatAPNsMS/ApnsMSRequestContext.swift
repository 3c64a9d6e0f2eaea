import Hummingbird
import NIOCore

/// The request context of the apns-ms port: Hummingbird's core context plus the peer address,
/// which `server.acl.publish` is checked against.
struct ApnsMSRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's address, as the socket saw it.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// The notification route reads its body with its own limit.
    var maxUploadSize: Int { ApnsMSNotificationRoute.maxBodySize }
}
