import ArgumentParser
import Foundation
import HeraldSimulators
import Logging

/// Registers N FCM subscribers (`gcm`, kind `fcm`) to one event, publishes once, and measures
/// until all N were answered: the APNs run's method applied to FCM HTTP v1.
struct FCMFanOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fcm", abstract: "FCM fan-out to N subscribers.")

    @OptionGroup var options: FanOutOptions

    /// A registration token of FCM's shape (`[A-Za-z0-9_:-]`, well over 32 characters).
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "bench" + String(repeating: "0", count: 64 - hex.count) + hex + ":APA91b"
    }

    func run() async throws {
        let driver = try options.prepareDriver(defaultDirectory: "/tmp/herald-bench-fcm")
        let directory = driver.directory
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
        let tuning = try options.providerOptionLines(defaults: ["max_connections": "8"])
        func provider(port: Int) -> String {
            """
                gcm:
                  kind: fcm
                  endpoint: https://127.0.0.1:\(port)
                  ca_file: \(authority.caCertificateFile!)
                  service_account_file: \(accountFile)
            \(tuning)
            """
        }

        var results: [Result] = []
        do {
            if options.measuresSimulator {
                let database = try await driver.seed(proto: "gcm", token: Self.token)
                var result = try await driver.measure(
                    label: "Herald → FCM simulator", tag: "simulator", provider: provider(port: simulatorPort), database: database)
                let tokens = simulator.acceptedTokens()
                result.note = "simulator accepted \(tokens.count) requests, \(Set(tokens).count) distinct tokens (expected \(driver.subscribers)), "
                    + "\(simulator.tokenExchangeCount) token exchange(s)"
                results.append(result)
                guard Set(tokens).count == driver.subscribers else {
                    say(result.note)
                    throw ExitCode(2)
                }
            }
            if options.measuresSink {
                let sink = try H2OSink.start(directory: directory, authority: authority, answer: .fcm)
                defer { sink.stop() }
                say("h2o sink on port \(sink.port)")
                results += try await driver.sinkRuns(
                    options.runs, proto: "gcm", token: Self.token, provider: provider(port: sink.port), sink: sink,
                    h2load: { try H2Load.run(.fcm(projectID: account.projectID), port: sink.port, requests: options.h2loadRequests, caFile: authority.caCertificateFile!) },
                    h2loadRequests: options.h2loadRequests)
            }
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
        FanOutDriver.report(results)
    }
}
