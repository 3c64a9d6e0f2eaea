import Foundation
import HeraldSimulators
import HeraldTestSupport
import HeraldWebPush
import Logging
import Testing

/// Helpers shared by the acceptance tests.
enum Fixtures {
    /// Registers an `http` subscriber whose URL is `url`; returns its id.
    static func register(_ herald: TestHerald, url: String, extra: String = "") async throws -> String {
        let response = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(formEncoded(url))\(extra)")
        #expect(response.status == 201 || response.status == 200, "\(response.body)")
        let object = try json(response.body) as? [String: Any]
        return try #require(object?["id"] as? String)
    }

    /// Parses a JSON text (fragments allowed).
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    /// Form-encodes a value.
    static func formEncoded(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Starts a server, runs `body`, and stops the server whatever happens.
func withHerald<T>(yaml: String = "", _ body: (TestHerald) async throws -> T) async throws -> T {
    let level = ProcessInfo.processInfo.environment["HERALD_TEST_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .warning
    let herald = try await TestHerald.start(yaml: yaml, logLevel: level)
    do {
        let result = try await body(herald)
        try await herald.stop()
        return result
    } catch {
        try? await herald.stop()
        throw error
    }
}

/// Starts an APNs simulator and a server with its provider (and `extra` YAML), runs `body`, and
/// stops both whatever happens.
func withAPNsHerald<T>(
    certificateAuthentication: Bool = false, options: [String] = [], extra: String = "",
    configure: (inout APNsSimulator.Configuration) -> Void = { _ in },
    _ body: (TestHerald, APNsTestBed) async throws -> T
) async throws -> T {
    let bed = try await APNsTestBed.start(certificateAuthentication: certificateAuthentication, extraProviderOptions: options, configure: configure)
    do {
        let result = try await withHerald(yaml: bed.yaml(extra: extra)) { try await body($0, bed) }
        await bed.simulator.stop()
        return result
    } catch {
        await bed.simulator.stop()
        throw error
    }
}

/// Starts an APNs and an FCM simulator and a server configured by `yaml` (given both test beds),
/// runs `body`, and stops all three whatever happens.
func withAPNsAndFCMHerald<T>(
    yaml: (APNsTestBed, FCMTestBed) -> String, _ body: (TestHerald, APNsTestBed, FCMTestBed) async throws -> T
) async throws -> T {
    let apns = try await APNsTestBed.start()
    let fcm = try await FCMTestBed.start()
    do {
        let result = try await withHerald(yaml: yaml(apns, fcm)) { try await body($0, apns, fcm) }
        await apns.simulator.stop()
        await fcm.simulator.stop()
        return result
    } catch {
        await apns.simulator.stop()
        await fcm.simulator.stop()
        throw error
    }
}

/// Starts a Web Push simulator (with a test CA of its own) and a server whose `webpush` provider
/// signs with a fresh VAPID key and trusts the simulator, with `extra` YAML; runs `body`, and stops
/// both whatever happens.
func withWebPushHerald<T>(extra: String = "", _ body: (TestHerald, WebPushSimulator, VAPIDKey) async throws -> T) async throws -> T {
    let directory = TestHerald.makeTemporaryDirectory()
    let authority = try SimulatorCertificateAuthority(directory: directory)
    var configuration = WebPushSimulator.Configuration(certificateAuthority: authority)
    configuration.logger = Logger(label: "test.simulator.webpush", factory: { _ in SwiftLogNoOpLogHandler() })
    let simulator = WebPushSimulator(configuration: configuration)
    _ = try await simulator.start()
    let key = VAPIDKey()
    let yaml = """
        providers:
          webpush:
            kind: webpush
            vapid_subject: mailto:ops@example.com
            vapid_private_key_file: \(directory)/vapid.pem
            ca_file: \(authority.caCertificateFile!)
        \(extra)
        """
    do {
        try key.write(toFile: directory + "/vapid.pem")
        let result = try await withHerald(yaml: yaml) { try await body($0, simulator, key) }
        await simulator.stop()
        return result
    } catch {
        await simulator.stop()
        throw error
    }
}

/// Starts a webhook receiver, runs `body`, and stops it.
func withReceiver<T>(
    tls: SimulatorCertificateAuthority? = nil,
    behaviour: @escaping WebhookReceiver.Behaviour = { _ in .ok },
    _ body: (WebhookReceiver) async throws -> T
) async throws -> T {
    let receiver = try await WebhookReceiver.start(
        tls: try tls?.serverTLSConfiguration(applicationProtocols: ["http/1.1"]), behaviour: behaviour)
    do {
        let result = try await body(receiver)
        await receiver.stop()
        return result
    } catch {
        await receiver.stop()
        throw error
    }
}
