import Foundation
import HeraldSimulators
import Logging

extension Simulate {
    /// Starts the FCM simulator (sends and its OAuth token endpoint) with a generated service account;
    /// returns it and its provider YAML (proto `gcm`, the conventional name for FCM).
    func startFCM(authority: SimulatorCertificateAuthority, directory: String, logger: Logger) async throws -> (any SimulatorHandle, String) {
        let account = try FCMTestServiceAccount(projectID: "herald-simulator")
        var configuration = FCMSimulator.Configuration(serviceAccounts: [account], certificateAuthority: authority)
        configuration.port = fcmPort
        configuration.onAccepted = acceptedRequestLog(logger)
        let simulator = FCMSimulator(configuration: configuration)
        _ = try await simulator.start()
        let accountFile = (directory as NSString).appendingPathComponent("fcm-service-account.json")
        try account.write(to: accountFile, tokenURI: simulator.tokenURL!)
        logger.info("FCM simulator listening", metadata: ["endpoint": "\(simulator.endpointURL!)", "project": "\(account.projectID)"])
        let yaml = """
              gcm:
                kind: fcm
                endpoint: \(simulator.endpointURL!)
                ca_file: \(authority.caCertificateFile ?? "")
                service_account_file: \(accountFile)
            """
        return (FCMHandle(simulator: simulator), yaml)
    }
}

/// The FCM simulator as a ``SimulatorHandle``.
struct FCMHandle: SimulatorHandle {
    let simulator: FCMSimulator
    var summary: String { "fcm: \(simulator.acceptedCount) accepted of \(simulator.requestCount)" }
    func stop() async { await simulator.stop() }
}
