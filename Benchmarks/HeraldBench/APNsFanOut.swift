import ArgumentParser
import Crypto
import Foundation
import HeraldSimulators

/// Registers N APNs subscribers to one event, publishes once, and measures until all N were answered.
struct APNsFanOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "apns", abstract: "APNs fan-out to N subscribers.")

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
    var directory = "/tmp/herald-bench"

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let driver = FanOutDriver(subscribers: subscribers, herald: herald, directory: directory, inFlight: inFlight)
        let authority = try SimulatorCertificateAuthority(directory: directory)
        let key = P256.Signing.PrivateKey()
        let keyFile = directory + "/AuthKey_BENCHKEY01.p8"
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        say("machine: \(Machine.describe())")
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
                  max_connections: 4
            """
        }
        func token(_ index: Int) -> String {
            let hex = String(index, radix: 16)
            return String(repeating: "0", count: 64 - hex.count) + hex
        }

        var results: [Result] = []
        if target == "simulator" || target == "both" {
            let database = try await driver.seed(proto: "apns", token: token)
            var configuration = APNsSimulator.Configuration(
                teamID: "BENCHTEAM1", signingKeys: ["BENCHKEY01": key.publicKey], topics: ["com.example.bench"], certificateAuthority: authority)
            configuration.recordTokens = true
            let simulator = APNsSimulator(configuration: configuration)
            let port = try await simulator.start()
            var result = try await driver.measure(label: "Herald → APNs simulator", tag: "simulator", provider: provider(port: port), database: database)
            let tokens = simulator.acceptedTokens()
            result.note = "simulator accepted \(tokens.count) requests, \(Set(tokens).count) distinct tokens (expected \(subscribers))"
            await simulator.stop()
            results.append(result)
            guard Set(tokens).count == subscribers else {
                say(result.note)
                throw ExitCode(2)
            }
        }
        if target == "sink" || target == "both" {
            let sink = try H2OSink.start(directory: directory, authority: authority, answer: .apns)
            defer { sink.stop() }
            say("h2o sink on port \(sink.port)")
            results += try await driver.sinkRuns(
                runs, proto: "apns", token: token, provider: provider(port: sink.port),
                h2load: { try H2Load.run(.apns, port: sink.port, requests: h2loadRequests, caFile: authority.caCertificateFile!) },
                h2loadRequests: h2loadRequests)
        }
        FanOutDriver.report(results)
    }
}
