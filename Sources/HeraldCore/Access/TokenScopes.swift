#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an API token may do: its realms, and the app it stands for (its providers and its
/// events). A token with providers or events is an app's: it sees and reaches nothing else.
public struct TokenScopes: Sendable, Equatable {
    /// The realms it may use.
    public var realms: Set<Realm>
    /// The providers (protos) of its app; `nil`: every provider.
    public var providers: Set<String>?
    /// Glob patterns (`*`, `?`, as `fnmatch` reads them) of the event names it may publish and
    /// subscribe to; `nil`: every event. `broadcast` and `unicast:<id>` only when a pattern names them.
    public var events: [String]?

    /// Creates scopes.
    public init(realms: Set<Realm>, providers: Set<String>? = nil, events: [String]? = nil) {
        self.realms = realms
        self.providers = providers
        self.events = events
    }

    /// Whether it may reach subscribers of `proto`.
    public func allows(provider proto: String) -> Bool {
        providers?.contains(proto) ?? true
    }

    /// Whether it may publish and subscribe to `event` (a name as the API writes it:
    /// `broadcast`, `unicast:<id>`, or an event's name).
    public func allows(event: String) -> Bool {
        guard let events else { return true }
        return events.contains { fnmatch($0, event, 0) == 0 }
    }

    /// Whether it restricts anything beyond realms: a token of one app.
    public var isAppScoped: Bool { providers != nil || events != nil }
}
