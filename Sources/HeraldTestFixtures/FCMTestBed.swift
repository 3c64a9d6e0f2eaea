import Foundation
import HeraldSimulators
import Logging

/// An FCM simulator with a fresh service account, and the provider YAML that points Herald at it.
public struct FCMTestBed: Sendable {
    /// The running simulator.
    public let simulator: FCMSimulator
    /// The `fcm` provider section (indented under `providers:`), named `gcm`.
    public let providerYAML: String

    /// Starts a simulator (recording payloads, logging nothing) for a new service account.
    public static func start(
        extraProviderOptions: [String] = [], configure: (inout FCMSimulator.Configuration) -> Void = { _ in }
    ) async throws -> FCMTestBed {
        let directory = TemporaryDirectory.make()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        let account = try FCMTestServiceAccount(projectID: "herald-test")
        var configuration = FCMSimulator.Configuration(serviceAccounts: [account], certificateAuthority: authority)
        configuration.recordPayloads = true
        configuration.logger = Logger(label: "test.simulator.fcm", factory: { _ in SwiftLogNoOpLogHandler() })
        configure(&configuration)
        let simulator = FCMSimulator(configuration: configuration)
        _ = try await simulator.start()
        try account.write(to: directory + "/service-account.json", tokenURI: simulator.tokenURL!)
        let lines = [
            "  gcm:",
            "    kind: fcm",
            "    endpoint: \(simulator.endpointURL!)",
            "    ca_file: \(authority.caCertificateFile!)",
            "    service_account_file: \(directory)/service-account.json",
        ] + extraProviderOptions.map { "    " + $0 }
        return FCMTestBed(simulator: simulator, providerYAML: lines.joined(separator: "\n"))
    }
}
