import Hummingbird
import Synchronization

/// The methods each registered path answers, so that a known path asked with a method it does not
/// serve answers `405 Method Not Allowed` with `Allow` (RFC 9110 §15.5.6) rather than the 404 of
/// an unknown path.
///
/// Hummingbird's router answers both with its not-found responder; the error middleware asks
/// this table which one it was. Filled once, after every route is registered.
final class RouteMethods: Sendable {
    private let routes = Mutex<[(path: RouterPath, methods: Set<HTTPRequest.Method>)]>([])

    /// Creates an empty table.
    init() {}

    /// Records every route of `router`.
    func load<Context>(_ router: Router<Context>) {
        var byPath: [(path: RouterPath, methods: Set<HTTPRequest.Method>)] = []
        for route in router.routes {
            if let index = byPath.firstIndex(where: { $0.path == route.path }) {
                byPath[index].methods.insert(route.method)
            } else {
                byPath.append((route.path, [route.method]))
            }
        }
        routes.withLock { $0 = byPath }
    }

    /// The methods `path` answers, sorted, or `nil` when no route has that path.
    func allowed(for path: String) -> [String]? {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        let methods = routes.withLock { routes in
            routes.filter { Self.matches($0.path, components) }.reduce(into: Set<HTTPRequest.Method>()) { $0.formUnion($1.methods) }
        }
        guard !methods.isEmpty else { return nil }
        // Hummingbird answers HEAD wherever it answers GET.
        let answered = methods.contains(.get) ? methods.union([.head]) : methods
        return answered.map(\.rawValue).sorted()
    }

    private static func matches(_ pattern: RouterPath, _ components: [Substring]) -> Bool {
        for (index, element) in pattern.enumerated() {
            // `**` takes the rest of the path, however long.
            if element.description == "**" { return true }
            guard index < components.count, element ~= components[index] else { return false }
        }
        return pattern.count == components.count
    }
}
