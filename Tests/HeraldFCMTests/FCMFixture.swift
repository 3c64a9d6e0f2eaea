import Foundation
import HeraldCore
import HeraldFCM
import HeraldHTTP2
import HeraldSimulators
import Logging
import Testing
import HeraldTestFixtures

/// A running FCM simulator over TLS with a generated CA, a service account written where the `fcm` kind reads it,
/// and providers built through the public kind.
struct FCMFixture {
    /// RSA key generation takes a noticeable moment; the tests share two accounts.
    static let account = try! FCMTestServiceAccount(projectID: "herald-test")
    static let strangerAccount = try! FCMTestServiceAccount(projectID: "herald-test", clientEmail: "stranger@herald-test.iam.gserviceaccount.com")

    let directory: String
    let authority: SimulatorCertificateAuthority
    let simulator: FCMSimulator
    let serviceAccountFile: String

    /// Starts a simulator; `configure` adjusts its configuration first.
    static func start(_ configure: (inout FCMSimulator.Configuration) -> Void = { _ in }) async throws -> FCMFixture {
        let directory = TemporaryDirectory.make()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        var configuration = FCMSimulator.Configuration(serviceAccounts: [account], certificateAuthority: authority)
        configuration.recordPayloads = true
        configure(&configuration)
        let simulator = FCMSimulator(configuration: configuration)
        _ = try await simulator.start()
        let file = directory + "/service-account.json"
        try account.write(to: file, tokenURI: simulator.tokenURL!)
        return FCMFixture(directory: directory, authority: authority, simulator: simulator, serviceAccountFile: file)
    }

    /// The options of an `fcm` provider pointed at the simulator.
    func options(_ extra: [String: String] = [:], serviceAccountFile: String? = nil) -> ConfigSection {
        var values: [(String, ConfigValue)] = [
            ("service_account_file", .scalar(serviceAccountFile ?? self.serviceAccountFile)),
            ("endpoint", .scalar(simulator.endpointURL!)),
            ("ca_file", .scalar(authority.caCertificateFile!)),
        ]
        values += extra.map { ($0.key, .scalar($0.value)) }
        return ConfigSection(path: "providers.gcm", values: .init(uniqueKeysWithValues: values))
    }

    /// A provider built by `FCMKind` from ``options(_:serviceAccountFile:)``, its pool on `engine`.
    func provider(_ extra: [String: String] = [:], serviceAccountFile: String? = nil, engine: HTTP2Engine) async throws -> FCMProvider {
        var extra = extra
        extra["http2_engine"] = engine.rawValue
        let provider = try await FCMKind().makeProvider(
            name: "gcm", options: options(extra, serviceAccountFile: serviceAccountFile),
            environment: ProviderEnvironment(logger: Logger(label: "test.fcm")))
        return try #require(provider as? FCMProvider)
    }

    /// Stops the simulator and removes the files.
    func stop() async {
        await simulator.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A registration token of the shape FCM issues.
    static func token(_ number: Int) -> String {
        "fcm\(number):APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx_token_\(String(format: "%06d", number))"
    }

    /// A target for `token`.
    static func target(_ token: String) -> DeliveryTarget {
        DeliveryTarget(subscriberID: SubscriberID(rawValue: "subscriber"), token: token)
    }

    /// Renders `event` for `variant` and requires a message.
    static func message(_ provider: FCMProvider, _ event: PublishedEvent, _ variant: MessageVariant = MessageVariant()) throws -> FCMMessage {
        guard case .send(let message) = provider.render(event, for: variant) else {
            throw FixtureError.notRendered
        }
        return message
    }

    enum FixtureError: Error { case notRendered }
}
