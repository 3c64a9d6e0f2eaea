import Foundation
import HeraldSimulators
import Logging

extension Simulate {
    /// Starts the WNS simulator (OAuth token endpoint and channels) with one channel written to `wns-channel.txt`;
    /// returns it and the YAML of a `wns-toast` provider.
    func startWNS(authority: SimulatorCertificateAuthority, directory: String, logger: Logger) async throws -> (any SimulatorHandle, String) {
        let clientID = "ms-app://s-1-15-2-herald-simulator"
        let clientSecret = "simulator-secret"
        var configuration = WNSSimulator.Configuration(clientID: clientID, clientSecret: clientSecret, certificateAuthority: authority)
        configuration.port = wnsPort
        configuration.onAccepted = acceptedRequestLog(logger)
        let simulator = WNSSimulator(configuration: configuration)
        _ = try await simulator.start()
        let channel = simulator.makeChannel()
        let channelFile = (directory as NSString).appendingPathComponent("wns-channel.txt")
        try channel.write(toFile: channelFile, atomically: true, encoding: .utf8)
        logger.info("WNS simulator listening", metadata: ["token_endpoint": "\(simulator.tokenEndpoint)", "channel": "\(channelFile)"])
        let yaml = """
              wns-toast:
                kind: wns
                type: toast
                client_id: \(clientID)
                client_secret: \(clientSecret)
                token_endpoint: \(simulator.tokenEndpoint)
                ca_file: \(authority.caCertificateFile ?? "")
            """
        return (WNSHandle(simulator: simulator), yaml)
    }

    /// Starts the MPNS simulator with one channel written to `mpns-channel.txt`; returns it and the YAML of an
    /// `mpns-toast` provider.
    func startMPNS(authority: SimulatorCertificateAuthority, directory: String, logger: Logger) async throws -> (any SimulatorHandle, String) {
        var configuration = MPNSSimulator.Configuration(certificateAuthority: authority)
        configuration.port = mpnsPort
        configuration.onAccepted = acceptedRequestLog(logger)
        let simulator = MPNSSimulator(configuration: configuration)
        _ = try await simulator.start()
        let channel = simulator.makeChannel()
        let channelFile = (directory as NSString).appendingPathComponent("mpns-channel.txt")
        try channel.write(toFile: channelFile, atomically: true, encoding: .utf8)
        logger.info("MPNS simulator listening", metadata: ["origin": "\(simulator.origin)", "channel": "\(channelFile)"])
        let yaml = """
              mpns-toast:
                kind: mpns
                type: toast
                endpoint: \(simulator.origin)
                ca_file: \(authority.caCertificateFile ?? "")
            """
        return (MPNSHandle(simulator: simulator), yaml)
    }

    /// Starts the legacy GCM simulator; returns it and the YAML of a `gcm-legacy` provider.
    func startGCMLegacy(authority: SimulatorCertificateAuthority, logger: Logger) async throws -> (any SimulatorHandle, String) {
        let apiKey = "AIzaSy-herald-simulator"
        var configuration = GCMLegacySimulator.Configuration(apiKeys: [apiKey], certificateAuthority: authority)
        configuration.port = gcmLegacyPort
        configuration.onAccepted = acceptedRequestLog(logger)
        let simulator = GCMLegacySimulator(configuration: configuration)
        _ = try await simulator.start()
        logger.info("legacy GCM simulator listening", metadata: ["endpoint": "\(simulator.endpoint)"])
        let yaml = """
              gcm-legacy:
                kind: gcm-legacy
                endpoint: \(simulator.endpoint)
                api_key: \(apiKey)
                ca_file: \(authority.caCertificateFile ?? "")
            """
        return (GCMLegacyHandle(simulator: simulator), yaml)
    }
}

/// The WNS simulator as a ``SimulatorHandle``.
struct WNSHandle: SimulatorHandle {
    let simulator: WNSSimulator
    var summary: String {
        let statistics = simulator.statistics()
        return "wns: \(statistics.accepted) accepted of \(statistics.notificationRequests)"
    }
    func stop() async { await simulator.stop() }
}

/// The MPNS simulator as a ``SimulatorHandle``.
struct MPNSHandle: SimulatorHandle {
    let simulator: MPNSSimulator
    var summary: String {
        let statistics = simulator.statistics()
        return "mpns: \(statistics.accepted) accepted of \(statistics.requests)"
    }
    func stop() async { await simulator.stop() }
}

/// The legacy GCM simulator as a ``SimulatorHandle``: counts tokens delivered, and the (batched) requests.
struct GCMLegacyHandle: SimulatorHandle {
    let simulator: GCMLegacySimulator
    var summary: String {
        let statistics = simulator.statistics()
        return "gcm-legacy: \(statistics.delivered) delivered in \(statistics.requests) requests"
    }
    func stop() async { await simulator.stop() }
}
