import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldSimulators
import HeraldWebPush
import Logging
import NIOCore
import NIOSSL
import OrderedCollections
import Testing
import HeraldTestFixtures

/// A running Web Push simulator with its CA on disk, and a `webpush` provider built through `WebPushKind` that
/// trusts it; torn down whatever the test does.
struct WebPushFixture: Sendable {
    static let subject = "mailto:ops@example.com"

    let directory: String
    let authority: SimulatorCertificateAuthority
    let simulator: WebPushSimulator
    let key: VAPIDKey
    let provider: WebPushProvider
    /// A plain client trusting the CA, for requests the provider would never send.
    let client: HTTPClient

    /// Starts a simulator configured by `configure` and a provider with `options` added to the required ones,
    /// runs `body`, then stops both.
    static func with(
        configure: (inout WebPushSimulator.Configuration) -> Void = { _ in },
        options: [String: String] = [:],
        _ body: (WebPushFixture) async throws -> Void
    ) async throws {
        let directory = TemporaryDirectory.make()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        var configuration = WebPushSimulator.Configuration(certificateAuthority: authority)
        // Tests start many simulators; their start/stop lines would drown the test output.
        configuration.logger = Logger(label: "test.simulator.webpush", factory: { _ in SwiftLogNoOpLogHandler() })
        configure(&configuration)
        let simulator = WebPushSimulator(configuration: configuration)
        _ = try await simulator.start()

        let key = VAPIDKey()
        var values: OrderedDictionary<String, ConfigValue> = [
            "vapid_subject": .scalar(subject),
            "vapid_private_key": .scalar(key.privateKeyBase64URL),
            "ca_file": .scalar(authority.caCertificateFile!),
            // Generous: the whole suite runs in parallel on 2 cores, and each connection goes through the egress guard.
            "timeout": .scalar("60"),
        ]
        for (name, value) in options { values[name] = .scalar(value) }
        let environment = ProviderEnvironment(logger: Logger(label: "test.webpush", factory: { _ in SwiftLogNoOpLogHandler() }))
        let provider = try await WebPushKind().makeProvider(
            name: "webpush", options: ConfigSection(path: "providers.webpush", values: values), environment: environment)

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates([try authority.caNIOSSLCertificate()])]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))

        let fixture = WebPushFixture(
            directory: directory, authority: authority, simulator: simulator, key: key,
            provider: provider as! WebPushProvider, client: client)
        do {
            try await body(fixture)
        } catch {
            await fixture.tearDown()
            throw error
        }
        await fixture.tearDown()
    }

    private func tearDown() async {
        await provider.shutdown()
        try? await client.shutdown()
        await simulator.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The delivery target of `subscription`, registered in PushSubscription form as a browser's page would.
    func target(_ subscription: WebPushSimulator.Subscription) throws -> DeliveryTarget {
        let token = try #require(provider.normalizeToken(TokenInput(token: .string(subscription.json))))
        return DeliveryTarget(subscriberID: .random(), token: token.token)
    }

    /// Renders `event` for `variant` and sends it to `subscription`.
    func deliver(_ event: PublishedEvent, variant: MessageVariant = MessageVariant(), to subscription: WebPushSimulator.Subscription) async throws
        -> DeliveryOutcome
    {
        let outcome = await provider.deliver(event, variant: variant, to: try target(subscription))
        return try #require(outcome)
    }

    /// Posts `body` to `endpoint` with exactly `headers`, as a client other than Herald might; returns the status
    /// and the response body.
    func post(_ endpoint: String, headers: [(String, String)], body: [UInt8]) async throws -> (status: Int, headers: [(String, String)], body: String) {
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .seconds(10))
        let answer = try await response.body.collect(upTo: 1 << 16)
        return (Int(response.status.code), response.headers.map { ($0.name, $0.value) }, String(buffer: answer))
    }
}

extension WebPushFixture {
    /// GETs `url`; returns the status and the body.
    func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let answer = try await response.body.collect(upTo: 1 << 16)
        return (Int(response.status.code), String(buffer: answer))
    }
}

/// A simple notification with a title and message in two languages and one data key.
func sampleEvent(ttl: Int? = nil, priority: NotificationPriority? = nil, collapseKey: String? = nil) -> PublishedEvent {
    PublishedEvent(
        event: "sport",
        title: LocalizedText(["default": "Goal", "fr": "But"]),
        message: LocalizedText(["default": "1-0", "fr": "1 à 0"]),
        data: ["match": "42"],
        ttl: ttl,
        priority: priority,
        collapseKey: collapseKey)
}
