import HeraldConfiguration
import HeraldCore
import HeraldIntake
import HeraldServerTLS
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOCore
import ServiceLifecycle

/// The apns-ms stand-in (`compat.apns_ms`, compat.md §4): an HTTP/1.1 port of its own taking
/// `POST /notification` and `GET /expired-devices`; with `tls`, HTTPS with HTTP/2 or HTTP/1.1 by
/// ALPN, its certificate reloaded on `SIGHUP`.
///
/// A notification becomes one raw send of a prepared APNs payload with a single attempt, whose
/// first answer (or 202 after 5 s) is the client's answer; the dead tokens APNs reports are handed
/// to `GET /expired-devices` once each. The port is checked by source address only:
/// `server.acl.publish` (compat.md §1.1); notifications are limited per source address by
/// `server.rate_limit.publish`.
public struct ApnsMSFrontEnd: FrontEndKind {
    /// `apns-ms`: the origin of its sends in feedback, dead letters and metrics.
    public var name: String { "apns-ms" }

    /// Creates the kind.
    public init() {}

    /// The port's HTTP server (and, with `tls`, its certificate reloader), or nothing when `compat.apns_ms` is absent.
    public func makeServices(context: FrontEndContext) throws -> [any Service] {
        guard let section = context.configuration.compat.apnsMS else { return [] }
        let intake = context.intake
        let settings = try ApnsMSSettings(section: section) { intake.providers[$0] != nil }
        let acl = try context.configuration.server.acl[.publish].map { entries throws(ConfigurationError) in
            try AccessList(entries, key: "server.acl.publish")
        }
        var logger = context.logger
        logger[metadataKey: "front_end"] = "\(name)"
        let origin = DeliveryOrigin(name)
        let responder = ApnsMSResponder(
            notification: ApnsMSNotificationRoute(intake: intake, provider: settings.provider, origin: origin, logger: logger),
            expiredDevices: ApnsMSExpiredDevicesRoute(store: context.feedback, origin: origin, logger: logger),
            acl: acl, rateLimiter: context.rateLimiter)
        let bound = context.bound
        let port = settings.port
        let server = context.configuration.server
        let (channel, credentials) = try HTTPServerBuilder.frontEndListener(tls: settings.tls, server: server) {
            .http1(configuration: .init(idleTimeout: TimeAmount(server.idleTimeout)))
        }
        let application = Application(
            responder: responder,
            server: channel,
            configuration: .init(address: .hostname(settings.host, port: port), serverName: nil),
            onServerRunning: { channel in bound("apns_ms", channel.localAddress?.port ?? port) },
            logger: logger)
        guard let credentials else { return [application] }
        return [TLSReloadService(credentials: [credentials], logger: logger), application]
    }
}
