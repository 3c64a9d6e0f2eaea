import Crypto
import Foundation
import HeraldSimulators

/// An APNs simulator with fresh credentials, and the provider YAML that points Herald at it.
public struct APNsTestBed: Sendable {
    /// The running simulator.
    public let simulator: APNsSimulator
    /// The `apns` provider section (indented under `providers:`), named `apns`.
    public let providerYAML: String
    /// The bundle id served.
    public let topic: String
    /// The simulator's configuration, with the port it got: another simulator made from it serves
    /// the same credentials at the same address (a service coming back).
    public let configuration: APNsSimulator.Configuration

    /// Starts a simulator; `certificateAuthentication` issues a client certificate instead of a signing key.
    public static func start(
        certificateAuthentication: Bool = false,
        extraProviderOptions: [String] = [],
        configure: (inout APNsSimulator.Configuration) -> Void = { _ in }
    ) async throws -> APNsTestBed {
        let directory = TemporaryDirectory.make()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        let topic = "com.example.app"
        let key = P256.Signing.PrivateKey()
        var configuration = APNsSimulator.Configuration(
            teamID: "TEAM123456", signingKeys: ["KEY1234567": key.publicKey], topics: [topic], certificateAuthority: authority)
        configuration.recordPayloads = true
        configuration.clientCertificateAuthentication = certificateAuthentication
        // Below the ephemeral range: a simulator started again at this address (a service coming
        // back) cannot find the port taken by some test's outgoing connection meanwhile.
        configuration.port = try HeraldProcess.freePort()
        configure(&configuration)
        let simulator = APNsSimulator(configuration: configuration)
        let port = try await simulator.start()
        configuration.port = port

        var lines = [
            "  apns:",
            "    kind: apns",
            "    endpoint: https://127.0.0.1:\(port)",
            "    ca_file: \(authority.caCertificateFile!)",
            "    topic: \(topic)",
        ]
        if certificateAuthentication {
            let certificate = try authority.issueClientCertificate(topic: topic)
            lines += ["    cert_file: \(certificate.certificateFile!)", "    cert_key_file: \(certificate.privateKeyFile!)"]
        } else {
            let keyFile = directory + "/AuthKey_KEY1234567.p8"
            try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
            lines += ["    team_id: TEAM123456", "    key_id: KEY1234567", "    key_file: \(keyFile)"]
        }
        lines += extraProviderOptions.map { "    " + $0 }
        return APNsTestBed(simulator: simulator, providerYAML: lines.joined(separator: "\n"), topic: topic, configuration: configuration)
    }

    /// A configuration with this `apns` provider and the `http` one.
    public func yaml(extra: String = "") -> String {
        "providers:\n\(providerYAML)\n  http:\n    kind: http\n" + extra
    }

    /// A distinct 64-hex-digit device token for each `n`.
    public static func token(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return "ab" + String(repeating: "0", count: 62 - hex.count) + hex
    }

    /// A token given in hex as base64, as push2mob's senders and Matrix clients' pushkeys carry it.
    public static func base64(hex: String) -> String {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes).base64EncodedString()
    }
}
