import Synchronization

/// An OAuth access token a provider sends with (FCM's, Push Kit's): fetched on first use, cached
/// until shortly before it expires, and refreshed by a single fetch however many sends need it
/// at once.
public final class AccessTokenCache<Failure: Error>: Sendable {
    /// A token and how long the service said it lives.
    public struct Grant: Sendable {
        /// The access token.
        public var token: String
        /// Its lifetime, from the service's `expires_in`.
        public var expiresIn: Duration

        /// Creates a grant.
        public init(token: String, expiresIn: Duration) {
            self.token = token
            self.expiresIn = expiresIn
        }
    }

    private struct Cached: Sendable {
        let value: String
        /// When a new token is fetched instead: the expiry minus a margin.
        let refreshAt: ContinuousClock.Instant
    }

    private enum Lookup {
        case cached(String)
        case pending(Task<Result<Cached, Failure>, Never>)
    }

    private struct State: Sendable {
        var cached: Cached?
        /// The fetch in flight, which every caller waits for instead of starting another.
        var refresh: Task<Result<Cached, Failure>, Never>?
    }

    /// The longest a token is refreshed ahead of its expiry; a tenth of its life when that is less.
    public let maximumRefreshMargin: Duration
    private let fetch: @Sendable () async throws(Failure) -> Grant
    private let state = Mutex(State())

    /// Creates a cache that gets tokens from `fetch`.
    /// - Parameter maximumRefreshMargin: default 5 minutes (Google's and Huawei's tokens live an hour).
    public init(maximumRefreshMargin: Duration = .seconds(300), fetch: @escaping @Sendable () async throws(Failure) -> Grant) {
        self.maximumRefreshMargin = maximumRefreshMargin
        self.fetch = fetch
    }

    /// A valid access token, from the cache or from the fetch this call starts or joins.
    public func current() async throws(Failure) -> String {
        let now = ContinuousClock.now
        let lookup: Lookup = state.withLock { state in
            if let cached = state.cached, now < cached.refreshAt {
                return .cached(cached.value)
            }
            if let refresh = state.refresh {
                return .pending(refresh)
            }
            // Started under the lock so that no second caller can start another; it takes the lock itself
            // only after this one is released.
            let refresh = Task { await self.refresh() }
            state.refresh = refresh
            return .pending(refresh)
        }
        switch lookup {
        case .cached(let token):
            return token
        case .pending(let refresh):
            return try await refresh.value.get().value
        }
    }

    /// Forgets `token` after the service refused it, unless a newer one has replaced it already.
    ///
    /// Many sends can be refused with the same token at once; only the first drops it, and the rest
    /// then share the one fetch that follows.
    public func invalidate(_ token: String) {
        state.withLock { state in
            if state.cached?.value == token {
                state.cached = nil
            }
        }
    }

    private func refresh() async -> Result<Cached, Failure> {
        let started = ContinuousClock.now
        let result: Result<Cached, Failure>
        do throws(Failure) {
            let grant = try await fetch()
            // Measured from the request, so the margin also covers the fetch's own latency.
            let margin = min(maximumRefreshMargin, grant.expiresIn / 10)
            result = .success(Cached(value: grant.token, refreshAt: started + grant.expiresIn - margin))
        } catch {
            result = .failure(error)
        }
        state.withLock { state in
            state.refresh = nil
            if case .success(let cached) = result {
                state.cached = cached
            }
        }
        return result
    }
}
