import Logging

/// What every provider is built with, beyond its own options.
public struct ProviderEnvironment: Sendable {
    /// PEM files of extra trust roots for outbound TLS (`outbound.ca_file`; a provider's own `ca_file` is added by the kind).
    public var extraTrustRootFiles: [String]
    /// The logger providers log with.
    public var logger: Logger
    /// Where subscriber-supplied destinations may lead (`outbound.deny` and `outbound.allow`); a provider's own
    /// `deny` or `allow` replaces the list of the same name. Default ``DestinationPolicy/standard``.
    public var destinationPolicy: DestinationPolicy
    /// The clock providers stamp renders and signatures with: the store's. Default ``WallClock/system``.
    public var clock: WallClock

    /// Creates an environment.
    public init(
        extraTrustRootFiles: [String] = [], destinationPolicy: DestinationPolicy = .standard,
        logger: Logger = Logger(label: "herald.provider"), clock: WallClock = .system
    ) {
        self.extraTrustRootFiles = extraTrustRootFiles
        self.destinationPolicy = destinationPolicy
        self.logger = logger
        self.clock = clock
    }
}

/// A kind of provider (`http`, `apns`, `fcm`, ...): validates its options and builds providers.
///
/// Kinds register with a ``ProviderKindRegistry``; the configuration names a kind per
/// provider, and the server builds one provider per entry under `providers:`.
public protocol ProviderKind: Sendable {
    /// The kind's name as written in `kind:`.
    var name: String { get }
    /// Option keys this kind accepts besides `kind` (unknown keys are a configuration error).
    var optionKeys: Set<String> { get }
    /// Builds the provider called `name` from its options section.
    func makeProvider(name: String, options: ConfigSection, environment: ProviderEnvironment) async throws -> any PushProvider
    /// Checks the options that can be checked without building anything (no file, socket or
    /// network), when the configuration is loaded: so `herald config check` reports them, and
    /// `herald serve` before it opens the store.
    func validate(options: ConfigSection) throws(ConfigurationError)
}

extension ProviderKind {
    /// By default a kind checks its options only when it builds the provider.
    public func validate(options: ConfigSection) throws(ConfigurationError) {}
}

/// The provider kinds a server knows, by name.
public struct ProviderKindRegistry: Sendable {
    private var kinds: [String: any ProviderKind] = [:]

    /// Creates a registry holding `kinds`.
    public init(_ kinds: [any ProviderKind] = []) {
        for kind in kinds { register(kind) }
    }

    /// Adds (or replaces) a kind.
    public mutating func register(_ kind: any ProviderKind) {
        kinds[kind.name] = kind
    }

    /// The kind called `name`.
    public func kind(named name: String) -> (any ProviderKind)? { kinds[name] }

    /// Every registered kind name, sorted.
    public var names: [String] { kinds.keys.sorted() }
}
