import Foundation
import Hummingbird

/// A faithful local imitation of Huawei Push Kit's server API v1 and Huawei's OAuth 2.0 token endpoint, for tests,
/// benchmarks and `herald simulate hms`.
///
/// One HTTPS origin serves `POST /oauth2/v3/token` (the client-credentials grant, checking the app id and secret
/// against ``Configuration/credentials``) and `POST /v1/<appId>/messages:send` (bearer tokens it issued for that app,
/// `80200001`/`80200003` otherwise; Push Kit's message checks, the 1000-token and 4096-byte limits; per-token state,
/// answering a partial success `80100000` whose `msg` names the illegal tokens, or `80300007` when every token is
/// illegal). Every answer is `{"code":…,"msg":…,"requestId":…}`. It injects faults from a seeded generator and
/// records what it accepted.
///
/// ```swift
/// let simulator = HMSSimulator(configuration: .init(
///     clientID: "104567890", clientSecret: "secret", certificateAuthority: try SimulatorCertificateAuthority()))
/// try await simulator.start()
/// // provider options: endpoint: simulator.endpoint, token_endpoint: simulator.tokenEndpoint
/// ```
public final class HMSSimulator: Sendable {
    /// The configuration the simulator was created with.
    public var configuration: Configuration { store.configuration }
    let store: HMSSimulatorStore
    private let server: HTTP1SimulatorServer

    /// Creates a simulator; nothing listens until ``start()``.
    public init(configuration: Configuration) {
        let store = HMSSimulatorStore(configuration: configuration)
        self.store = store
        let router = Router()
        router.post("/oauth2/v3/token") { request, _ -> Response in
            try await store.token(request)
        }
        // The last segment is `messages:send`; matched as a parameter so that its colon is never read as one.
        router.post("/v1/:app/:method") { request, context -> Response in
            try await store.send(
                request, appID: context.parameters.get("app") ?? "", method: context.parameters.get("method") ?? "")
        }
        self.server = HTTP1SimulatorServer(
            name: "HMS", host: configuration.host, port: configuration.port,
            certificateAuthority: configuration.certificateAuthority, logger: configuration.logger, router: router)
    }

    /// Binds ``Configuration/host``:``Configuration/port`` and starts serving; returns the bound port.
    @discardableResult
    public func start() async throws -> Int {
        try await server.start()
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        await server.stop()
    }

    /// The bound port while the simulator runs.
    public var port: Int? { server.port }

    /// The origin to configure as the `hms` provider's `endpoint` (`https://127.0.0.1:<port>`); empty before
    /// ``start()``.
    public var endpoint: String {
        guard let port else { return "" }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.certificateAuthority == nil ? "http" : "https")://\(host):\(port)"
    }

    /// The token endpoint to configure as the provider's `token_endpoint`; empty before ``start()``.
    public var tokenEndpoint: String {
        let origin = endpoint
        return origin.isEmpty ? "" : origin + HMSSimulatorStore.tokenPath
    }

    // MARK: Device state

    /// Makes `token` illegal from now on (the app was uninstalled): partial successes name it, and a request of only
    /// such tokens gets `80300007`.
    public func unregister(token: String) {
        store.state.withLock { _ = $0.unregistered.insert(token) }
    }

    /// Makes every token of `tokens` illegal from now on.
    public func unregister(tokens: [String]) {
        store.state.withLock { $0.unregistered.formUnion(tokens) }
    }

    /// Makes `token` deliverable again.
    public func restore(token: String) {
        store.state.withLock { _ = $0.unregistered.remove(token) }
    }

    // MARK: Access tokens

    /// Revokes every access token issued so far: sends using them get `80200001`.
    public func revokeAccessTokens() {
        store.state.withLock { $0.accessTokens.removeAll() }
    }

    /// Makes every access token issued so far expire now: sends using them get `80200003`.
    public func expireAccessTokens() {
        let now = Date().timeIntervalSince1970
        store.state.withLock { state in
            for token in state.accessTokens.keys {
                state.accessTokens[token]?.expiresAt = now
            }
        }
    }

    // MARK: Fault injection

    /// The current random fault plan.
    public var faults: Faults {
        store.state.withLock { $0.faults.plan }
    }

    /// Replaces the random fault plan; takes effect for the next request.
    public func setFaults(_ faults: Faults) {
        precondition(faults.answeringRate <= 1.000_001, "fault rates must add up to at most 1")
        store.state.withLock { $0.faults.plan = faults }
    }

    /// Makes send request number `number` (1-based, counting every `messages:send` request the simulator receives,
    /// see ``Statistics/requests``) get `injection` instead of ordinary processing.
    public func inject(_ injection: Injection, atRequest number: Int) {
        store.state.withLock { $0.faults.inject(injection, atRequest: number) }
    }

    /// Makes the next send requests get `injections`, one each, in order (before the random fault plan applies).
    public func injectNext(_ injections: [Injection]) {
        store.state.withLock { $0.faults.injectNext(injections) }
    }

    /// Makes the next token requests get `injections`, one each, in order; a ``Injection/code(_:httpStatus:msg:retryAfter:)``
    /// or ``Injection/status(_:retryAfter:)`` is answered with that status in the OAuth error form.
    public func injectNextTokenRequests(_ injections: [Injection]) {
        store.state.withLock { $0.queuedTokenAnswers.append(contentsOf: injections) }
    }

    // MARK: Recording

    /// `messages:send` requests received so far, whatever their answer.
    public var requestCount: Int {
        store.state.withLock { $0.statistics.requests }
    }

    /// Requests answered `80000000` or `80100000` so far.
    public var acceptedCount: Int {
        store.state.withLock { $0.statistics.accepted }
    }

    /// Access tokens issued so far.
    public var tokenExchangeCount: Int {
        store.state.withLock { $0.statistics.tokenExchanges }
    }

    /// Every token delivered to, in order, duplicates kept (empty when ``Configuration/recordTokens`` is off).
    public func acceptedTokens() -> [String] {
        store.state.withLock { $0.acceptedTokens }
    }

    /// Every accepted request with headers and body (empty unless ``Configuration/recordPayloads`` is on).
    public func accepted() -> [Accepted] {
        store.state.withLock { $0.accepted }
    }

    /// Counters of requests, answers and token requests.
    public func statistics() -> Statistics {
        store.state.withLock { $0.statistics }
    }

    /// Forgets the recorded tokens and requests (counters are kept).
    public func clearRecords() {
        store.state.withLock { state in
            state.accepted.removeAll()
            state.acceptedTokens.removeAll()
        }
    }
}
