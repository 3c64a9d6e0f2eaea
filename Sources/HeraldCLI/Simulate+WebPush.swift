import Foundation
import HeraldSimulators
import HeraldWebPush
import Logging

extension Simulate {
    /// Starts the Web Push simulator with a fresh VAPID key and one browser-like subscription written to
    /// `webpush-subscription.json`, ready to register; returns it and its provider YAML.
    func startWebPush(authority: SimulatorCertificateAuthority, directory: String, logger: Logger) async throws -> (any SimulatorHandle, String) {
        var configuration = WebPushSimulator.Configuration(certificateAuthority: authority)
        configuration.port = webPushPort
        configuration.onAccepted = acceptedRequestLog(logger)
        let simulator = WebPushSimulator(configuration: configuration)
        _ = try await simulator.start()
        let keyFile = (directory as NSString).appendingPathComponent("vapid.pem")
        let key: VAPIDKey
        if FileManager.default.fileExists(atPath: keyFile) {
            key = try VAPIDKey(contentsOfFile: keyFile)
        } else {
            key = VAPIDKey()
            try key.write(toFile: keyFile)
        }
        let subscription = try simulator.makeSubscription(applicationServerKey: key.publicKeyBase64URL)
        let subscriptionFile = (directory as NSString).appendingPathComponent("webpush-subscription.json")
        try subscription.json.write(toFile: subscriptionFile, atomically: true, encoding: .utf8)
        logger.info("Web Push simulator listening", metadata: [
            "origin": "\(simulator.origin!)", "subscription": "\(subscriptionFile)",
            "messages": "\(simulator.origin!)/subscriptions/\(subscription.id)/messages",
        ])
        let yaml = """
              webpush:
                kind: webpush
                vapid_subject: mailto:ops@example.com
                vapid_private_key_file: \(keyFile)
                ca_file: \(authority.caCertificateFile ?? "")
            """
        return (WebPushHandle(simulator: simulator), yaml)
    }
}

/// The Web Push simulator as a ``SimulatorHandle``.
struct WebPushHandle: SimulatorHandle {
    let simulator: WebPushSimulator
    var summary: String { "webpush: \(simulator.acceptedCount) accepted of \(simulator.requestCount)" }
    func stop() async { await simulator.stop() }
}
