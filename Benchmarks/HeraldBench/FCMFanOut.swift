import ArgumentParser
import Foundation
import HeraldSimulators
import Logging

/// Registers N FCM subscribers (`gcm`, kind `fcm`) to one event, publishes once, and measures
/// until all N were answered: the APNs run's method applied to FCM HTTP v1.
struct FCMFanOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fcm", abstract: "FCM fan-out to N subscribers.")

    @Option(help: "Subscribers of the published event.")
    var subscribers = 100_000

    @Option(help: "simulator, sink, or both.")
    var target = "both"

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Herald's delivery.in_flight.")
    var inFlight = 4000

    @Option(help: "Sink runs (Herald, then h2load, each time); the ratio's median is reported.")
    var runs = 1

    @Option(help: "Requests h2load sends to the sink.")
    var h2loadRequests = 200_000

    @Option(help: "Working directory (database, certificates, logs).")
    var directory = "/tmp/herald-bench-fcm"

    /// A registration token of FCM's shape (`[A-Za-z0-9_:-]`, well over 32 characters).
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "bench" + String(repeating: "0", count: 64 - hex.count) + hex + ":APA91b"
    }

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let driver = FanOutDriver(subscribers: subscribers, herald: herald, directory: directory, inFlight: inFlight)
        let authority = try SimulatorCertificateAuthority(directory: directory)
        let account = try FCMTestServiceAccount(projectID: "herald-bench")
        say("machine: \(Machine.describe())")

        // The simulator also serves the OAuth token endpoint of the sink run: Herald exchanges one
        // assertion for one access token per run, so where it comes from does not weigh on the rate.
        var configuration = FCMSimulator.Configuration(serviceAccounts: [account], certificateAuthority: authority)
        configuration.recordTokens = true
        configuration.logger = Logger(label: "bench.simulator.fcm", factory: { _ in SwiftLogNoOpLogHandler() })
        let simulator = FCMSimulator(configuration: configuration)
        let simulatorPort = try await simulator.start()
        let accountFile = directory + "/service-account.json"
        try account.write(to: accountFile, tokenURI: simulator.tokenURL!)
        func provider(port: Int) -> String {
            """
                gcm:
                  kind: fcm
                  endpoint: https://127.0.0.1:\(port)
                  ca_file: \(authority.caCertificateFile!)
                  service_account_file: \(accountFile)
                  max_connections: 4
            """
        }

        var results: [Result] = []
        do {
            if target == "simulator" || target == "both" {
                let database = try await driver.seed(proto: "gcm", token: Self.token)
                var result = try await driver.measure(
                    label: "Herald → FCM simulator", tag: "simulator", provider: provider(port: simulatorPort), database: database)
                let tokens = simulator.acceptedTokens()
                result.note = "simulator accepted \(tokens.count) requests, \(Set(tokens).count) distinct tokens (expected \(subscribers)), "
                    + "\(simulator.tokenExchangeCount) token exchange(s)"
                results.append(result)
                guard Set(tokens).count == subscribers else {
                    say(result.note)
                    throw ExitCode(2)
                }
            }
            if target == "sink" || target == "both" {
                let sink = try H2OSink.start(directory: directory, authority: authority, answer: .fcm)
                defer { sink.stop() }
                say("h2o sink on port \(sink.port)")
                results += try await driver.sinkRuns(
                    runs, proto: "gcm", token: Self.token, provider: provider(port: sink.port),
                    h2load: { try H2Load.run(.fcm(projectID: account.projectID), port: sink.port, requests: h2loadRequests, caFile: authority.caCertificateFile!) },
                    h2loadRequests: h2loadRequests)
            }
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
        FanOutDriver.report(results)
    }
}
