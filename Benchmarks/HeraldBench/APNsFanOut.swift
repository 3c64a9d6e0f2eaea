import ArgumentParser
import Crypto
import Foundation
import HeraldSimulators

/// Registers N APNs subscribers to one event, publishes once, and measures until all N were answered.
struct APNsFanOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "apns", abstract: "APNs fan-out to N subscribers.")

    @OptionGroup var options: FanOutOptions

    func run() async throws {
        let driver = try options.prepareDriver(defaultDirectory: "/tmp/herald-bench")
        let directory = driver.directory
        let credentials = try APNsBenchCredentials(directory: directory, keyID: "BENCHKEY01", fresh: false)
        let (authority, key, keyFile) = (credentials.authority, credentials.key, credentials.keyFile)
        say("machine: \(Machine.describe())")
        let tuning = try options.providerOptionLines(defaults: ["max_connections": "8"])
        func provider(port: Int) -> String {
            """
                apns:
                  kind: apns
                  endpoint: https://127.0.0.1:\(port)
                  ca_file: \(authority.caCertificateFile!)
                  topic: com.example.bench
                  team_id: BENCHTEAM1
                  key_id: BENCHKEY01
                  key_file: \(keyFile)
            \(tuning)
            """
        }
        func token(_ index: Int) -> String {
            let hex = String(index, radix: 16)
            return String(repeating: "0", count: 64 - hex.count) + hex
        }

        var results: [Result] = []
        if options.measuresSimulator {
            let database = try await driver.seed(proto: "apns", token: token)
            var configuration = APNsSimulator.Configuration(
                teamID: "BENCHTEAM1", signingKeys: ["BENCHKEY01": key.publicKey], topics: ["com.example.bench"], certificateAuthority: authority)
            configuration.recordTokens = true
            let simulator = APNsSimulator(configuration: configuration)
            let port = try await simulator.start()
            var result = try await driver.measure(label: "Herald → APNs simulator", tag: "simulator", provider: provider(port: port), database: database)
            let tokens = simulator.acceptedTokens()
            result.note = "simulator accepted \(tokens.count) requests, \(Set(tokens).count) distinct tokens (expected \(driver.subscribers))"
            await simulator.stop()
            results.append(result)
            guard Set(tokens).count == driver.subscribers else {
                say(result.note)
                throw ExitCode(2)
            }
        }
        if options.measuresSink {
            let sink = try H2OSink.start(directory: directory, authority: authority, answer: .apns)
            defer { sink.stop() }
            say("h2o sink on port \(sink.port)")
            results += try await driver.sinkRuns(
                options.runs, proto: "apns", token: token, provider: provider(port: sink.port), sink: sink,
                h2load: { try H2Load.run(.apns, port: sink.port, requests: options.h2loadRequests, caFile: authority.caCertificateFile!) },
                h2loadRequests: options.h2loadRequests)
        }
        FanOutDriver.report(results)
    }
}
