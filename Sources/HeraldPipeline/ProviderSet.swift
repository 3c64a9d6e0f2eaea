import HeraldCore

/// The configured providers, by name (the `proto` subscribers register with).
public struct ProviderSet: Sendable {
    /// Providers by name.
    public let byName: [String: any PushProvider]

    /// Creates a set from built providers.
    public init(_ providers: [any PushProvider]) {
        var byName: [String: any PushProvider] = [:]
        for provider in providers { byName[provider.name] = provider }
        self.byName = byName
    }

    /// The provider called `name`.
    public subscript(name: String) -> (any PushProvider)? { byName[name] }

    /// Shuts every provider down.
    public func shutdown() async {
        for provider in byName.values { await provider.shutdown() }
    }
}
