import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL

/// Hummingbird's TLS channel with ALPN (HTTP/2 or HTTP/1.1), plus a deadline on the handshake.
struct TLSServerChannel: ServerChildChannel {
    typealias Value = HTTP2UpgradeChannel.Value

    let upgrade: HTTP2UpgradeChannel
    let handshakeDeadline: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let setUp = upgrade.setup(channel: channel, logger: logger)
        // The upgrade channel added its TLS handler synchronously (setup runs on the channel's
        // event loop); the deadline handler goes right after it, where the handshake event arrives.
        do {
            let operations = channel.pipeline.syncOperations
            let tls = try operations.handler(type: NIOSSLServerHandler.self)
            try operations.addHandler(TLSHandshakeDeadlineHandler(deadline: handshakeDeadline, logger: logger), position: .after(tls))
        } catch {
            return setUp.flatMapThrowing { _ in throw error }
        }
        return setUp
    }

    func handle(value: Value, logger: Logger) async {
        await upgrade.handle(value: value, logger: logger)
    }
}
