import Foundation
import HeraldSimulators
import Logging

extension Simulate {
    /// The app id and secret the HMS simulator knows, written into the provider YAML.
    static let hmsClientID = "100000001"
    static let hmsClientSecret = "hms-simulator-secret"

    /// Starts the Huawei Push Kit simulator (sends and its OAuth token endpoint); returns it and the YAML of an `hms`
    /// provider pointing at it.
    func startHMS(authority: SimulatorCertificateAuthority, logger: Logger) async throws -> (any SimulatorHandle, String) {
        var configuration = HMSSimulator.Configuration(
            clientID: Self.hmsClientID, clientSecret: Self.hmsClientSecret, certificateAuthority: authority)
        configuration.port = hmsPort
        configuration.onAccepted = acceptedRequestLog(logger)
        let simulator = HMSSimulator(configuration: configuration)
        _ = try await simulator.start()
        logger.info(
            "HMS simulator listening",
            metadata: ["endpoint": "\(simulator.endpoint)", "token_endpoint": "\(simulator.tokenEndpoint)", "app": "\(Self.hmsClientID)"])
        let yaml = """
              hms:
                kind: hms
                client_id: "\(Self.hmsClientID)"
                client_secret: \(Self.hmsClientSecret)
                endpoint: \(simulator.endpoint)
                token_endpoint: \(simulator.tokenEndpoint)
                ca_file: \(authority.caCertificateFile ?? "")
            """
        return (HMSHandle(simulator: simulator), yaml)
    }
}

/// The HMS simulator as a ``SimulatorHandle``: counts tokens delivered, and the (batched) requests.
struct HMSHandle: SimulatorHandle {
    let simulator: HMSSimulator
    var summary: String {
        let statistics = simulator.statistics()
        return "hms: \(statistics.delivered) delivered in \(statistics.requests) requests"
    }
    func stop() async { await simulator.stop() }
}
