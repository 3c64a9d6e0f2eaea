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
            let database = try await driver.seed(proto: "apns", token: token)
            var result = try await driver.measure(label: "Herald → h2o sink", tag: "sink", provider: provider(port: sink.port), database: database)
            say("Herald done; running h2load")
            let h2load = try H2Load.run(.apns, port: sink.port, requests: h2loadRequests, caFile: authority.caCertificateFile!)
            result.note = String(format: "h2load against the same sink: %.0f req/s; Herald/h2load = %.3f", h2load, result.rate / h2load)
            results.append(result)
            results.append(Result(label: "h2load → h2o sink (this machine's practical limit)", rate: h2load, seconds: Double(h2loadRequests) / h2load))
        }
        FanOutDriver.report(results)
    }
}
