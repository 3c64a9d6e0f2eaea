import ServiceLifecycle

/// Runs a listening service once the node's API tokens have been read: a server whose only
/// credentials are tokens must not open its port before it knows them (it would have to refuse
/// or, worse, admit every request), and one that opens a moment later answers no 503 meanwhile.
///
/// SQLite is read before the services start, so this waits only for a store that is starting
/// (PostgreSQL's pool).
public struct AfterTokensRead: Service, CustomStringConvertible {
    public var description: String { "AfterTokensRead(\(service))" }

    let cache: TokenCache
    let service: any Service

    /// Wraps `service`.
    public init(cache: TokenCache, service: any Service) {
        self.cache = cache
        self.service = service
    }

    public func run() async throws {
        // Start-up only, and short: a poll is simpler than a signal every reader would carry.
        while !cache.isLoaded {
            if Task.isShuttingDownGracefully || Task.isCancelled { return }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(10)) }
        }
        try await service.run()
    }
}
