import Foundation
import Logging
import Synchronization

/// The OAuth access token of one provider: obtained on first use, cached until shortly before it expires, and
/// refreshed by a single exchange however many sends need it at once.
final class FCMAccessTokenSource: Sendable {
    /// The longest a token is refreshed ahead of its expiry (Google's tokens live an hour).
    static let maximumRefreshMargin: Duration = .seconds(300)

    private struct Cached: Sendable {
        let value: String
        /// When a new token is fetched instead: the expiry minus a margin.
        let refreshAt: ContinuousClock.Instant
    }

    private enum Lookup {
        case cached(String)
        case pending(Task<Result<Cached, FCMTokenError>, Never>)
    }

    private struct State: Sendable {
        var cached: Cached?
        /// The exchange in flight, which every caller waits for instead of starting another.
        var refresh: Task<Result<Cached, FCMTokenError>, Never>?
    }

    private let signer: FCMAssertionSigner
    private let exchanger: FCMTokenExchanger
    private let logger: Logger
    private let state = Mutex(State())

    init(signer: FCMAssertionSigner, exchanger: FCMTokenExchanger, logger: Logger) {
        self.signer = signer
        self.exchanger = exchanger
        self.logger = logger
    }

    /// A valid access token, from the cache or from the exchange this call starts or joins.
    func current() async throws(FCMTokenError) -> String {
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

    /// Forgets `token` after FCM refused it, unless a newer one has replaced it already.
    ///
    /// Many sends can be refused with the same token at once; only the first drops it, and the rest then share
    /// the one exchange that follows.
    func invalidate(_ token: String) {
        state.withLock { state in
            if state.cached?.value == token {
                state.cached = nil
            }
        }
    }

    private func refresh() async -> Result<Cached, FCMTokenError> {
        let started = ContinuousClock.now
        let result: Result<Cached, FCMTokenError>
        do throws(FCMTokenError) {
            let assertion: String
            do {
                assertion = try await signer.assertion()
            } catch {
                throw FCMTokenError(.signing("\(error)"))
            }
            let grant = try await exchanger.exchange(assertion: assertion)
            // Measured from the request, so the margin also covers the exchange's own latency.
            let margin = min(Self.maximumRefreshMargin, grant.expiresIn / 10)
            result = .success(Cached(value: grant.accessToken, refreshAt: started + grant.expiresIn - margin))
            logger.debug("obtained an FCM access token", metadata: [
                "fcm.client": "\(signer.issuer)", "fcm.token_endpoint": "\(exchanger.url)",
                "fcm.expires_in": "\(grant.expiresIn)",
            ])
        } catch {
            result = .failure(error)
            logger.warning("FCM access token exchange failed", metadata: [
                "fcm.client": "\(signer.issuer)", "fcm.token_endpoint": "\(exchanger.url)", "error": "\(error)",
            ])
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

