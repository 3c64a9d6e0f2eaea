import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Keeps a ``TokenCache`` in step with the store: reads every token twice a second, so that a
/// token created or revoked on any node works or stops working on this one within a second,
/// and writes the uses noted meanwhile in one statement every few seconds.
public struct TokenRefreshService: Service, CustomStringConvertible {
    public var description: String { "TokenRefreshService" }

    /// How often the tokens are read.
    public static let interval = Duration.milliseconds(500)
    /// How often uses are written: `last_used` is a hint for operators, not an audit log.
    public static let usesEvery = 10

    let store: any TokenStore
    let cache: TokenCache
    let logger: Logger

    /// Creates the service.
    public init(store: any TokenStore, cache: TokenCache, logger: Logger) {
        self.store = store
        self.cache = cache
        self.logger = logger
    }

    /// Reads the tokens once.
    public func load() async throws {
        cache.replace(with: try await store.storedTokens())
    }

    public func run() async throws {
        var round = 0
        var failing = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await load()
                round += 1
                if round % Self.usesEvery == 0 { try await writeUses() }
                if failing { logger.notice("reading API tokens works again") }
                failing = false
            } catch {
                // The cache keeps the last tokens read: a store down for a moment revokes nothing
                // and admits nothing new. A store still starting (PostgreSQL) is no failure yet;
                // until the first read, requests that depend on tokens are answered 503.
                if !cache.isLoaded {
                    logger.debug("API tokens not read yet", metadata: ["error": "\(error)"])
                } else if !failing {
                    logger.error("cannot read API tokens; keeping the last read", metadata: ["error": "\(error)"])
                    failing = true
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
        }
        try? await writeUses()
    }

    private func writeUses() async throws {
        let uses = cache.takeUses()
        guard !uses.isEmpty else { return }
        try await store.recordTokenUses(uses)
    }
}
