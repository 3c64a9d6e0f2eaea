import ArgumentParser
import Crypto
import Foundation
import HeraldSimulators
import Logging
import ServiceLifecycle

/// `herald simulate`: local, faithful imitations of the push services, plus a Herald
/// configuration that points providers at them.
struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run local imitations of the push services (TLS, HTTP/2, real error answers).",
        discussion: """
            Generates a CA and credentials in --directory, starts the simulators, and with
            --config-out writes a Herald configuration whose providers point at them:
              herald simulate --config-out simulated.yml &
              herald serve --config simulated.yml
            """
    )

    /// The simulators started when no kind is named.
    static let defaultKinds = ["apns", "fcm", "webpush", "wns", "mpns", "gcm-legacy"]

    /// The simulators this build has: the default ones, and those started only when named (`hms`).
    static let availableKinds = defaultKinds + ["hms"]

    @Option(name: .long, help: "Write a Herald configuration with a provider of every simulated kind to this file.")
    var configOut: String?

    @Option(name: .long, help: "Where the CA, keys and certificates are written.")
    var directory: String = "herald-simulator"

    @Option(name: .long, help: "The APNs simulator's port.")
    var apnsPort: Int = 2197

    @Option(name: .long, help: "The FCM simulator's port (sends and the OAuth token endpoint).")
    var fcmPort: Int = 9444

    @Option(name: .long, help: "The Web Push simulator's port.")
    var webPushPort: Int = 9446

    @Option(name: .long, help: "The WNS simulator's port (channels and the OAuth token endpoint).")
    var wnsPort: Int = 9445

    @Option(name: .long, help: "The MPNS simulator's port.")
    var mpnsPort: Int = 9447

    @Option(name: .long, help: "The legacy GCM simulator's port.")
    var gcmLegacyPort: Int = 9448

    @Option(name: .long, help: "The Huawei Push Kit simulator's port (sends and the OAuth token endpoint).")
    var hmsPort: Int = 9449

    @Option(name: .long, help: "The bundle id (apns-topic) the APNs simulator serves.")
    var apnsTopic: String = "com.example.app"

    @Flag(
        name: .long,
        help: "Log every accepted request: its token (shortened), the headers that decide the delivery, and the payload.")
    var verbose = false

    @Argument(help: "Kinds to simulate (default: \(Simulate.defaultKinds.joined(separator: ", ")); hms only when named).")
    var kinds: [String] = []

    func validate() throws {
        for kind in kinds where !Self.availableKinds.contains(kind) {
            throw ValidationError("no simulator for '\(kind)' (available: \(Self.availableKinds.joined(separator: ", ")))")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "herald.simulate")
        logger.logLevel = verbose ? .debug : .info
        let directory = URL(fileURLWithPath: directory).standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let authority = try SimulatorCertificateAuthority(directory: directory)
        let selected = kinds.isEmpty ? Self.defaultKinds : kinds

        var providers: [String] = []
        var simulators: [any SimulatorHandle] = []
        for kind in selected {
            let (handle, yaml) = try await start(kind, authority: authority, directory: directory, logger: logger)
            simulators.append(handle)
            providers.append(yaml)
        }
        if let configOut {
            let yaml = """
                # Written by `herald simulate`: providers pointing at the local simulators.
                providers:
                \(providers.joined(separator: "\n"))
                  http:
                    kind: http

                """
            try yaml.write(toFile: configOut, atomically: true, encoding: .utf8)
            logger.info("wrote configuration", metadata: ["file": "\(configOut)"])
        }
        logger.info("simulators running; stop with Ctrl-C")

        let group = ServiceGroup(configuration: .init(
            services: [.init(service: SimulatorService(simulators: simulators, logger: logger))],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }

    /// Starts the simulator of `kind`; returns it and the YAML of a provider pointing at it.
    private func start(
        _ kind: String, authority: SimulatorCertificateAuthority, directory: String, logger: Logger
    ) async throws -> (any SimulatorHandle, String) {
        switch kind {
        case "apns": try await startAPNs(authority: authority, directory: directory, logger: logger)
        case "fcm": try await startFCM(authority: authority, directory: directory, logger: logger)
        case "webpush": try await startWebPush(authority: authority, directory: directory, logger: logger)
        case "wns": try await startWNS(authority: authority, directory: directory, logger: logger)
        case "mpns": try await startMPNS(authority: authority, directory: directory, logger: logger)
        case "gcm-legacy": try await startGCMLegacy(authority: authority, logger: logger)
        case "hms": try await startHMS(authority: authority, logger: logger)
        default: throw ValidationError("no simulator for '\(kind)'")
        }
    }

    /// Starts the APNs simulator with a fresh signing key; returns it and its provider YAML.
    private func startAPNs(authority: SimulatorCertificateAuthority, directory: String, logger: Logger) async throws -> (any SimulatorHandle, String) {
        let teamID = "SIMTEAM001"
        let keyID = "SIMKEY0001"
        let key = P256.Signing.PrivateKey()
        let keyFile = (directory as NSString).appendingPathComponent("AuthKey_\(keyID).p8")
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)

        var configuration = APNsSimulator.Configuration(
            teamID: teamID, signingKeys: [keyID: key.publicKey], topics: [apnsTopic], certificateAuthority: authority)
        configuration.port = apnsPort
        configuration.onAccepted = acceptedRequestLog(logger)
        // Broadcast channels (iOS 18) on the same port: the printed provider's broadcast_endpoint.
        configuration.broadcast = true
        let simulator = APNsSimulator(configuration: configuration)
        let port = try await simulator.start()
        logger.info("APNs simulator listening", metadata: ["endpoint": "https://127.0.0.1:\(port)", "topic": "\(apnsTopic)"])
        let yaml = """
              apns:
                kind: apns
                endpoint: https://127.0.0.1:\(port)
                ca_file: \(authority.caCertificateFile ?? "")
                topic: \(apnsTopic)
                team_id: \(teamID)
                key_id: \(keyID)
                key_file: \(keyFile)
                broadcast_endpoint: https://127.0.0.1:\(port)
            """
        return (APNsHandle(simulator: simulator), yaml)
    }
}

/// A running simulator, as the `simulate` command manages it.
protocol SimulatorHandle: Sendable {
    /// A one-line summary of what it accepted.
    var summary: String { get }
    /// Stops it.
    func stop() async
}

/// The APNs simulator as a ``SimulatorHandle``.
struct APNsHandle: SimulatorHandle {
    let simulator: APNsSimulator
    var summary: String { "apns: \(simulator.acceptedCount) accepted of \(simulator.requestCount)" }
    func stop() async { await simulator.stop() }
}

/// Keeps the simulators up until shutdown, logging what they accepted every few seconds.
struct SimulatorService: Service {
    let simulators: [any SimulatorHandle]
    let logger: Logger

    func run() async throws {
        var last = ""
        while !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(5)) }
            let summary = simulators.map(\.summary).joined(separator: ", ")
            if summary != last {
                logger.info("\(summary)")
                last = summary
            }
        }
        for simulator in simulators { await simulator.stop() }
    }
}
