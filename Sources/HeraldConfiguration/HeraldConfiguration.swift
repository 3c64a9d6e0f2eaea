import HeraldCore
import OrderedCollections

/// Herald's whole configuration, after the file, the environment and the flags are merged and validated.
///
/// Every property has a default, so `HeraldConfiguration()` is what `herald serve` runs with
/// when there is no configuration at all (`interface.md`).
public struct HeraldConfiguration: Sendable, Equatable {
    /// The listeners, the database and who may use them (`server`); see ``Server`` for defaults.
    public var server: Server
    /// Logging (`log`); level `info` by default.
    public var log: Log
    /// Server-Sent Events (`event_source`); enabled by default.
    public var eventSource: EventSource
    /// Outbound TLS (`outbound`); no extra trust roots by default.
    public var outbound: Outbound
    /// The delivery pipeline's limits (`delivery`); see ``Delivery`` for defaults.
    public var delivery: Delivery
    /// The providers by name, in file order (`providers`).
    ///
    /// Default (when the file has no `providers` key): one provider `http` of kind `http`.
    /// An explicit empty mapping means no providers.
    public var providers: OrderedDictionary<String, ProviderConfiguration>
    /// The compat front-ends (`compat`); all off by default.
    public var compat: Compat
    /// The UnifiedPush push server (`unifiedpush`), read by its front-end; off (`nil`) by default.
    public var unifiedPush: ConfigSection?

    /// The providers used when the configuration names none: `http` (webhooks).
    public static var defaultProviders: OrderedDictionary<String, ProviderConfiguration> {
        var providers = OrderedDictionary<String, ProviderConfiguration>()
        providers["http"] = ProviderConfiguration(
            kind: "http",
            options: ConfigSection(path: "providers.http", values: ["kind": .scalar("http")])
        )
        return providers
    }

    /// Creates a configuration; every argument defaults to the documented default.
    public init(
        server: Server = Server(),
        log: Log = Log(),
        eventSource: EventSource = EventSource(),
        outbound: Outbound = Outbound(),
        delivery: Delivery = Delivery(),
        providers: OrderedDictionary<String, ProviderConfiguration> = HeraldConfiguration.defaultProviders,
        compat: Compat = Compat(),
        unifiedPush: ConfigSection? = nil
    ) {
        self.unifiedPush = unifiedPush
        self.server = server
        self.log = log
        self.eventSource = eventSource
        self.outbound = outbound
        self.delivery = delivery
        self.providers = providers
        self.compat = compat
    }
}
