import HeraldCore

/// One entry under `providers`: its kind and its options, validated but not yet built.
///
/// The server builds the provider with `ProviderKind.makeProvider(name:options:environment:)`,
/// which reads the options it declared in `optionKeys`.
public struct ProviderConfiguration: Sendable, Equatable {
    /// The kind's name (`kind`), registered in the loader's ``ProviderKindRegistry``.
    public var kind: String
    /// The provider's whole mapping, `kind` included, at path `providers.<name>`.
    public var options: ConfigSection
    /// Its deliveries in flight at once (`max_in_flight`); default `nil`: `delivery.in_flight` for a
    /// push service, the kind's own concurrency for kinds whose subscribers name their destination.
    public var maxInFlight: Int?
    /// Its deliveries in flight to one destination host (`max_in_flight_per_host`), for kinds whose
    /// subscribers name their destination; default `nil`: 64.
    public var maxInFlightPerHost: Int?

    /// Creates a provider configuration.
    public init(kind: String, options: ConfigSection) {
        self.kind = kind
        self.options = options
    }

    /// Checks a provider name: it is a `proto` that clients send, and part of URLs and metric labels.
    static func validate(name: String, key: String) throws(ConfigurationError) {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": return true
            default: return false
            }
        }
        guard !name.isEmpty, allowed else {
            throw ConfigurationError(key: key, "a provider name may contain only letters, digits, '.', '_' and '-'")
        }
    }

    /// Reads one provider, checking its kind is registered and its keys are the kind's.
    init(section: ConfigSection, kinds: ProviderKindRegistry) throws(ConfigurationError) {
        let kindName = try section.requiredString("kind")
        guard let kind = kinds.kind(named: kindName) else {
            let known = kinds.names.isEmpty ? "no kinds are registered" : "known kinds: " + kinds.names.joined(separator: ", ")
            throw ConfigurationError(key: section.keyPath("kind"), "unknown provider kind \"\(kindName)\" (\(known))")
        }
        try section.rejectUnknownKeys(known: kind.optionKeys.union(ConfigurationSchema.providerCommonKeys))
        _ = try section.nonEmptyString("ca_file")
        try kind.validate(options: section)
        self.init(kind: kindName, options: section)
        maxInFlight = try section.int("max_in_flight", atLeast: 1)
        maxInFlightPerHost = try section.int("max_in_flight_per_host", atLeast: 1)
    }
}
