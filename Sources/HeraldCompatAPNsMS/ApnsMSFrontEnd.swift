import HeraldConfiguration
import HeraldCore
import HeraldIntake
import Hummingbird
import NIOCore
import ServiceLifecycle

/// The apns-ms stand-in (`compat.apns_ms`, compat.md §4): an HTTP/1.1 port of its own taking
/// `POST /notification` and `GET /expired-devices`.
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

    /// The port's HTTP server, or nothing when `compat.apns_ms` is absent.
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
            expiredDevices: ApnsMSExpiredDevicesRoute(store: intake.store, origin: origin, logger: logger),
            acl: acl, rateLimiter: context.rateLimiter)
        let bound = context.bound
        let port = settings.port
        let application = Application(
            responder: responder,
            server: .http1(configuration: .init(idleTimeout: TimeAmount(context.configuration.server.idleTimeout))),
            configuration: .init(address: .hostname(settings.host, port: port), serverName: nil),
            onServerRunning: { channel in bound("apns_ms", channel.localAddress?.port ?? port) },
            logger: logger)
        return [application]
    }
}
