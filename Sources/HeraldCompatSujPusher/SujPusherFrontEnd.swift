import Collections
import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldIntake
import Logging
import ServiceLifecycle

/// The suj-pusher stand-in (`compat.suj_pusher`, compat.md §2): Herald is the Redis client. It takes
/// messages from the list `<ns>:suj_pusher_msgs` and the legacy channel `<ns>:suj_pusher_queue`
/// and sends each to every service it addresses.
///
/// Messages carry their own credentials (an APNs certificate, a WNS package SID and secret, a GCM
/// API key), so the front-end brings providers of its own (``makeProviders(configuration:environment:)``),
/// each keeping one underlying provider per credential; its raw sends name them and carry the
/// credentials in `herald-credential-` headers, which are stored with the deliveries (so that a
/// restart can still send them) and never sent, logged or shown.
public struct SujPusherFrontEnd: FrontEndKind {
    /// `suj-pusher`: the front-end's name in logs, and the origin of what it sends.
    public var name: String { "suj-pusher" }

    /// How long a certificate's (or SID's, or API key's) connections stay open without traffic.
    static let idleTimeout: Duration = .seconds(600)
    /// How long a token APNs called dead is skipped for that certificate, as suj-pusher did.
    static let deadTokenMemory: Duration = .seconds(7 * 24 * 3600)

    /// Creates the kind.
    public init() {}

    /// The providers for credentials that come with messages: APNs certificates, WNS SIDs, legacy
    /// GCM API keys (when `legacy_gcm_endpoint` is set), and WPNS (MPNS), which needs none.
    public func makeProviders(
        configuration: HeraldConfiguration, environment: ProviderEnvironment, kinds: ProviderKindRegistry
    ) async throws -> [any PushProvider] {
        guard let section = configuration.compat.sujPusher else { return [] }
        let settings = try SujPusherSettings(section: section)
        func kind(_ name: String) throws(ConfigurationError) -> any ProviderKind {
            guard let kind = kinds.kind(named: name) else {
                throw ConfigurationError(key: "compat.suj_pusher", "needs the provider kind \"\(name)\", which this build lacks")
            }
            return kind
        }
        let apns = try kind("apns")
        let wns = try kind("wns")
        let mpns = try kind("mpns")
        let gcmLegacy = try settings.legacyGCMEndpoint.map { _ throws(ConfigurationError) in try kind("gcm-legacy") }
        var logger = environment.logger
        logger[metadataKey: "front_end"] = "\(name)"
        var providers: [any PushProvider] = []

        providers.append(CredentialedProvider(
            name: SujPusherRouter.apnsProvider, kind: "apns",
            selectorHeaders: [SujPusherRouter.certificateHeader, PreparedPayload.apnsEnvironmentHeader],
            idleTimeout: Self.idleTimeout, deadTokenMemory: Self.deadTokenMemory, logger: logger
        ) { selectors in
            let environmentName = selectors[PreparedPayload.apnsEnvironmentHeader] ?? "sandbox"
            let pem = selectors[SujPusherRouter.certificateHeader] ?? ""
            var options: OrderedDictionary<String, ConfigValue> = [
                "environment": .scalar(environmentName), "cert": .scalar(pem), "cert_key": .scalar(pem),
            ]
            if let endpoint = settings.apnsEndpoints[environmentName] { options["endpoint"] = .scalar(endpoint) }
            return try await apns.makeProvider(
                name: SujPusherRouter.apnsProvider, options: ConfigSection(path: "compat.suj_pusher", values: options),
                environment: environment)
        })

        providers.append(CredentialedProvider(
            name: SujPusherRouter.wnsProvider, kind: "wns", selectorHeaders: [SujPusherRouter.sidHeader, SujPusherRouter.secretHeader],
            subscriberDestinations: true, destinationPolicy: environment.destinationPolicy, idleTimeout: Self.idleTimeout, logger: logger
        ) { selectors in
            var options: OrderedDictionary<String, ConfigValue> = [
                "client_id": .scalar(selectors[SujPusherRouter.sidHeader] ?? ""),
                "client_secret": .scalar(selectors[SujPusherRouter.secretHeader] ?? ""),
            ]
            if let endpoint = settings.wnsTokenEndpoint { options["token_endpoint"] = .scalar(endpoint) }
            return try await wns.makeProvider(
                name: SujPusherRouter.wnsProvider, options: ConfigSection(path: "compat.suj_pusher", values: options), environment: environment)
        })

        if let endpoint = settings.legacyGCMEndpoint, let gcmLegacy {
            providers.append(CredentialedProvider(
                name: SujPusherRouter.gcmProvider, kind: "gcm-legacy", selectorHeaders: [SujPusherRouter.apiKeyHeader],
                idleTimeout: Self.idleTimeout, logger: logger
            ) { selectors in
                let options: OrderedDictionary<String, ConfigValue> = [
                    "endpoint": .scalar(endpoint), "api_key": .scalar(selectors[SujPusherRouter.apiKeyHeader] ?? ""),
                ]
                return try await gcmLegacy.makeProvider(
                    name: SujPusherRouter.gcmProvider, options: ConfigSection(path: "compat.suj_pusher", values: options),
                    environment: environment)
            })
        }

        // MPNS is shut down: its channels answer 404/410, and the failures are recorded.
        var wpnsOptions: OrderedDictionary<String, ConfigValue> = ["type": .scalar("raw")]
        if let endpoint = settings.wpnsEndpoint { wpnsOptions["endpoint"] = .scalar(endpoint) }
        providers.append(try await mpns.makeProvider(
            name: SujPusherRouter.wpnsProvider, options: ConfigSection(path: "compat.suj_pusher", values: wpnsOptions),
            environment: environment))
        return providers
    }

    /// The list consumer and the channel listener, or none when `compat.suj_pusher` is absent.
    public func makeServices(context: FrontEndContext) throws -> [any Service] {
        guard let section = context.configuration.compat.sujPusher else { return [] }
        let settings = try SujPusherSettings(section: section)
        var logger = context.logger
        logger[metadataKey: "front_end"] = "\(name)"
        let intake = context.intake
        let router = SujPusherRouter(settings: settings, providerKind: { intake.providers[$0]?.kind }, logger: logger)
        let handler = SujPusherHandler(
            intake: intake, router: router,
            metrics: FrontEndRequestCounter(label: "herald_suj_pusher_messages_total", sourceDimension: "input", factory: context.metricsFactory),
            logger: logger)
        let store = context.leases
        let owner = store.restartStableOwner
            ?? "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(UUID().uuidString.lowercased())"
        let leases = SujPusherLeases(store: store, owner: owner, logger: logger)
        return [
            SujPusherListConsumer(settings: settings, handler: handler, leases: leases, logger: logger),
            SujPusherChannelListener(settings: settings, handler: handler, leases: leases, logger: logger),
        ]
    }
}
