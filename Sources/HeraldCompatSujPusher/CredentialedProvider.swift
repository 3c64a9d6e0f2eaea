import Crypto
import Foundation
import HeraldCore
import Logging
import NIOConcurrencyHelpers

/// A provider whose credentials come with each message instead of from the configuration
/// (suj-pusher's `cert`, `sid` and `secret`, `api_key`: compat.md §2.4–2.6).
///
/// It keeps one provider of the underlying kind per distinct credential (and environment),
/// built on first use and shut down after `idleTimeout` without traffic, so a certificate
/// sent once does not hold connections open for ever. The underlying provider's answer
/// table classifies every answer: this type only picks the provider and, where asked,
/// remembers the tokens a credential's service called dead.
final class CredentialedProvider: PushProvider {
    /// A prepared payload and the credentials that choose its provider.
    struct Message: Sendable {
        /// The headers that choose the underlying provider (credentials, environment).
        var selectors: [String: String]
        /// A digest of ``selectors``: the key of the underlying provider.
        var key: String
        /// What is sent; its `herald-` headers are never sent.
        var payload: PreparedPayload
    }

    /// Builds the underlying provider for one set of selector headers.
    typealias Builder = @Sendable (_ selectors: [String: String]) async throws -> any PushProvider

    private struct Entry {
        var provider: Task<any PushProvider, any Error>
        var built: (any PushProvider)?
        var lastUsed: ContinuousClock.Instant
        var inFlight: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Tokens a credential's service answered dead, by credential key, until when they are skipped.
        var deadTokens: [String: [String: ContinuousClock.Instant]] = [:]
        var deadTokenCount = 0
        var sweeper: Task<Void, Never>?
        var shutDown = false
    }

    let name: String
    let kind: String
    let hasSubscriberDestinations: Bool
    let destinationPolicy: DestinationPolicy?
    private let selectorHeaders: [String]
    private let build: Builder
    private let idleTimeout: Duration
    private let deadTokenMemory: Duration?
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    /// The most dead tokens remembered across all credentials; past it the oldest are forgotten.
    static let maxRememberedDeadTokens = 100_000

    /// Creates a provider called `name` of `kind`.
    ///
    /// - Parameters:
    ///   - selectorHeaders: the prepared payload's headers that choose the underlying provider;
    ///     those named `herald-credential-…` are required.
    ///   - subscriberDestinations: whether tokens are URLs naming their own host (WNS channels).
    ///   - idleTimeout: how long an underlying provider stays without traffic before it is shut down.
    ///   - deadTokenMemory: how long a token the service called dead is skipped for that credential
    ///     (`nil`: never skipped).
    init(
        name: String, kind: String, selectorHeaders: [String], subscriberDestinations: Bool = false,
        destinationPolicy: DestinationPolicy? = nil, idleTimeout: Duration = .seconds(600), deadTokenMemory: Duration? = nil,
        logger: Logger, build: @escaping Builder
    ) {
        self.name = name
        self.kind = kind
        self.selectorHeaders = selectorHeaders
        self.hasSubscriberDestinations = subscriberDestinations
        self.destinationPolicy = destinationPolicy
        self.idleTimeout = idleTimeout
        self.deadTokenMemory = deadTokenMemory
        self.build = build
        var logger = logger
        logger[metadataKey: "provider"] = "\(name)"
        self.logger = logger
        let sweepEvery = min(idleTimeout, .seconds(60))
        let sweeper = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: sweepEvery)
                await self?.closeIdle()
            }
        }
        state.withLockedValue { $0.sweeper = sweeper }
    }

    /// Any non-empty token is taken: the underlying provider checks it when it sends, so that an
    /// invalid one is recorded in the feedback log (compat.md §2.4) rather than refusing the message.
    func normalizeToken(_ input: TokenInput) -> NormalizedToken? {
        guard let token = input.token?.scalarText?.trimmingCharacters(in: .whitespaces), !token.isEmpty else { return nil }
        return NormalizedToken(token: token)
    }

    func destinationHost(of token: String) -> String? {
        hasSubscriberDestinations ? DestinationHost.of(token) : nil
    }

    func render(_ notification: PublishedEvent, for variant: MessageVariant) -> RenderResult<Message> {
        .fail(DeliveryOutcome(.configurationFailure, reason: "EventsUnsupported"))
    }

    func render(_ payload: PreparedPayload) -> RenderResult<Message> {
        var selectors: [String: String] = [:]
        for header in selectorHeaders {
            if let value = payload.headers[header], !value.isEmpty {
                selectors[header] = value
            } else if header.hasPrefix(PreparedPayload.credentialHeaderPrefix) {
                return .fail(DeliveryOutcome(.messageFailure, reason: "MissingCredentials"))
            }
        }
        var digest = SHA256()
        for (header, value) in selectors.sorted(by: { $0.key < $1.key }) {
            digest.update(data: Array("\(header)\u{0}\(value)\u{0}".utf8))
        }
        let key = digest.finalize().map { String(format: "%02x", $0) }.joined()
        return .send(Message(selectors: selectors, key: key, payload: payload))
    }

    func send(_ message: Message, to target: DeliveryTarget) async -> DeliveryOutcome {
        let answer = NIOLockedValueBox(DeliveryOutcome(.transient, reason: "NoAnswer"))
        await send([(message, target)]) { _, outcome in answer.withLockedValue { $0 = outcome } }
        return answer.withLockedValue { $0 }
    }

    func send(_ deliveries: [(message: Message, target: DeliveryTarget)], report: @escaping @Sendable (Int, DeliveryOutcome) -> Void) async {
        var groups: [String: [Int]] = [:]
        for (index, delivery) in deliveries.enumerated() { groups[delivery.message.key, default: []].append(index) }
        await withTaskGroup(of: Void.self) { group in
            for (key, indices) in groups {
                group.addTask {
                    let selectors = deliveries[indices[0]].message.selectors
                    guard let provider = await self.acquire(key: key, selectors: selectors) else {
                        for index in indices { report(index, DeliveryOutcome(.messageFailure, reason: "InvalidCredentials")) }
                        return
                    }
                    await self.deliver(through: provider, key: key, items: indices.map { ($0, deliveries[$0]) }, report: report)
                    self.release(key: key)
                }
            }
        }
    }

    var connectionStatistics: ProviderConnectionStatistics? {
        let built = state.withLockedValue { $0.entries.values.compactMap(\.built) }
        var total = ProviderConnectionStatistics(connections: 0, streamsInUse: 0)
        for provider in built {
            guard let statistics = provider.connectionStatistics else { continue }
            total.connections += statistics.connections
            total.streamsInUse += statistics.streamsInUse
            total.queued += statistics.queued
        }
        return total
    }

    func shutdown() async {
        let (entries, sweeper) = state.withLockedValue { state in
            state.shutDown = true
            defer { state.entries = [:] }
            return (Array(state.entries.values), state.sweeper)
        }
        sweeper?.cancel()
        for entry in entries { await (try? entry.provider.value)?.shutdown() }
    }

    // MARK: - Underlying providers

    /// The provider for `key`, built if there is none; `nil` when the credentials cannot be used.
    private func acquire(key: String, selectors: [String: String]) async -> (any PushProvider)? {
        let task: Task<any PushProvider, any Error>? = state.withLockedValue { state in
            guard !state.shutDown else { return nil }
            if var entry = state.entries[key] {
                entry.inFlight += 1
                entry.lastUsed = .now
                state.entries[key] = entry
                return entry.provider
            }
            let build = self.build
            let task = Task { try await build(selectors) }
            state.entries[key] = Entry(provider: task, built: nil, lastUsed: .now, inFlight: 1)
            return task
        }
        guard let task else { return nil }
        do {
            let provider = try await task.value
            state.withLockedValue { state in
                if state.entries[key]?.built == nil { state.entries[key]?.built = provider }
            }
            return provider
        } catch {
            // Never the credentials themselves: only that they could not be used.
            logger.warning("invalid credentials: the message's part for this provider is dropped", metadata: ["error": "\(error)"])
            state.withLockedValue { state in state.entries[key] = nil }
            return nil
        }
    }

    private func release(key: String) {
        state.withLockedValue { state in
            guard var entry = state.entries[key] else { return }
            entry.inFlight -= 1
            entry.lastUsed = .now
            state.entries[key] = entry
        }
    }

    /// Shuts down the providers that have had no traffic for `idleTimeout`.
    func closeIdle() async {
        let now = ContinuousClock.now
        let idle: [Entry] = state.withLockedValue { state in
            let keys = state.entries.filter { $0.value.inFlight == 0 && $0.value.lastUsed + idleTimeout <= now }.map(\.key)
            return keys.compactMap { state.entries.removeValue(forKey: $0) }
        }
        for entry in idle { await (try? entry.provider.value)?.shutdown() }
        if !idle.isEmpty { logger.debug("closed idle connections", metadata: ["credentials": "\(idle.count)"]) }
    }

    // MARK: - Sending

    private func deliver<Underlying: PushProvider>(
        through provider: Underlying, key: String, items: [(index: Int, delivery: (message: Message, target: DeliveryTarget))],
        report: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        var rendered: [PreparedPayload: RenderResult<Underlying.Message>] = [:]
        var batch: [(message: Underlying.Message, target: DeliveryTarget)] = []
        var indices: [Int] = []
        for (index, delivery) in items {
            let token = delivery.target.token
            if isRememberedDead(token, key: key) {
                logger.info("Skipping invalid APN id", metadata: ["token": "\(token.prefix(8))…"])
                report(index, DeliveryOutcome(.deadToken, reason: "Unregistered"))
                continue
            }
            guard let normalized = provider.normalizeToken(TokenInput(token: .string(token))) else {
                report(index, DeliveryOutcome(.deadToken, reason: "InvalidToken"))
                continue
            }
            let payload = delivery.message.payload
            let result = rendered[payload] ?? provider.render(payload)
            rendered[payload] = result
            switch result {
            case .send(let message):
                batch.append((message, DeliveryTarget(subscriberID: nil, token: normalized.token)))
                indices.append(index)
            case .skip:
                report(index, .delivered)
            case .fail(let outcome):
                report(index, outcome)
            }
        }
        guard !batch.isEmpty else { return }
        let tokens = batch.map(\.target.token)
        let origins = indices
        await provider.send(batch) { position, outcome in
            if outcome.outcome == .deadToken { self.rememberDead(tokens[position], key: key) }
            report(origins[position], outcome)
        }
    }

    private func isRememberedDead(_ token: String, key: String) -> Bool {
        guard deadTokenMemory != nil else { return false }
        return state.withLockedValue { state in
            guard let until = state.deadTokens[key]?[token] else { return false }
            return until > .now
        }
    }

    private func rememberDead(_ token: String, key: String) {
        guard let deadTokenMemory else { return }
        let until = ContinuousClock.now + deadTokenMemory
        state.withLockedValue { state in
            if state.deadTokenCount >= Self.maxRememberedDeadTokens {
                // Rare: forget everything rather than scan for the oldest on a hot path.
                state.deadTokens = [:]
                state.deadTokenCount = 0
            }
            if state.deadTokens[key, default: [:]].updateValue(until, forKey: token) == nil { state.deadTokenCount += 1 }
        }
    }
}
