import ArgumentParser
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldSimulators
import Logging
import Synchronization

/// Herald's APNs provider alone (payload rendering, token, request building, the HTTP/2 pool over
/// nio-http2 or nghttp2, and TLS) against the h2o sink, with no store, pipeline or server: the ceiling that the
/// transport sets for the whole fan-out, measured beside h2load in the same run.
struct APNsTransport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-transport",
        abstract: "Herald's APNs provider and HTTP/2 pool alone against the h2o sink, beside h2load.")

    @Option(help: "Notifications to send.")
    var notifications = 100_000

    @Option(help: "Deliveries per batch handed to the provider (Herald's delivery.batch_size).")
    var batchSize = 1000

    @Option(help: "Batches in flight at once (Herald's delivery.in_flight / batch_size).")
    var batchesInFlight = 8

    @Option(help: "HTTP/2 connections (the provider's max_connections).")
    var maxConnections = 8

    @Option(help: "The provider's max_streams_per_connection.")
    var maxStreamsPerConnection = 1000

    @Option(help: "The provider's HTTP/2 engine: nio or nghttp2 (its http2_engine).")
    var http2Engine = "nio"

    @Option(help: "Runs of the provider, each between two h2load runs whose mean it is compared with; the ratio's median is reported.")
    var runs = 3

    @Option(help: "Requests h2load sends to the sink.")
    var h2loadRequests = 200_000

    @Option(help: "Working directory (certificates, sink configuration).")
    var directory = "/tmp/herald-bench-apns-transport"

    func run() async throws {
        let (credentials, sink) = try H2OSink.startForAPNsClients(directory: directory)
        defer { sink.stop() }
        let (authority, keyFile) = (credentials.authority, credentials.keyFile)

        let values: [(String, String)] = [
            ("endpoint", "https://127.0.0.1:\(sink.port)"), ("ca_file", authority.caCertificateFile!),
            ("topic", "com.example.bench"), ("team_id", "BENCHTEAM1"), ("key_id", "BENCHKEY01"), ("key_file", keyFile),
            ("max_connections", "\(maxConnections)"), ("max_streams_per_connection", "\(maxStreamsPerConnection)"),
            ("http2_engine", http2Engine),
        ]
        let section = ConfigSection(
            path: "providers.apns", values: .init(uniqueKeysWithValues: values.map { ($0.0, ConfigValue.scalar($0.1)) }))
        let logger = Logger(label: "bench.apns", factory: { _ in SwiftLogNoOpLogHandler() })

        let results = try await sink.bracketedRuns(
            runs, subject: "provider", requests: notifications, h2loadRequests: h2loadRequests,
            h2load: { try H2Load.run(.apns, port: sink.port, requests: h2loadRequests, caFile: authority.caCertificateFile!) }
        ) { run in
            // A fresh provider per run: new connections, as a freshly started Herald has.
            let provider = try await APNsKind().makeProvider(name: "apns", options: section, environment: ProviderEnvironment(logger: logger))
            let label = runs > 1 ? "APNs provider alone → h2o sink (run \(run))" : "APNs provider alone → h2o sink"
            do {
                let result = try await measure(provider, label: label)
                await provider.shutdown()
                return result
            } catch {
                await provider.shutdown()
                throw error
            }
        }
        Result.sayClientTable(results, requestsPerRun: notifications, unit: "notification")
    }

    /// Sends `notifications` distinct-token notifications through `provider` in batches, as the
    /// fan-out does, and counts every answer.
    private func measure<Provider: PushProvider>(_ provider: Provider, label: String) async throws -> Result {
        let notification = PublishedEvent(event: "bench", message: LocalizedText(["default": "Benchmark"]), data: ["n": "1"])
        guard case .send(let message) = provider.render(notification, for: provider.variant(lang: nil, silent: false, badge: 1, version: nil)) else {
            throw BenchError("the provider rendered no message")
        }
        let batches = stride(from: 0, to: notifications, by: batchSize).map { start in
            (start..<min(start + batchSize, notifications)).map { index in
                let hex = String(index, radix: 16)
                let token = String(repeating: "0", count: 64 - hex.count) + hex
                return (message: message, target: DeliveryTarget(subscriberID: SubscriberID(rawValue: "s\(index)"), token: token))
            }
        }
        let delivered = Counter()
        let cpuBefore = ChildProcess.ownCPUSeconds()
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func startBatch() {
                let batch = batches[next]
                next += 1
                group.addTask {
                    await provider.send(batch) { _, outcome in
                        if outcome.outcome == .delivered { delivered.add() }
                    }
                }
            }
            while next < min(batchesInFlight, batches.count) { startBatch() }
            while await group.next() != nil {
                if next < batches.count { startBatch() }
            }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.inSeconds
        let cpu = ChildProcess.ownCPUSeconds() - cpuBefore
        guard delivered.value == notifications else {
            throw BenchError("\(label): \(delivered.value) of \(notifications) delivered")
        }
        return Result(label: label, rate: Double(notifications) / seconds, seconds: seconds, cpuCores: cpu / seconds)
    }
}

/// A count shared by the provider's report callbacks.
private final class Counter: Sendable {
    private let count = Mutex(0)

    func add() {
        count.withLock { $0 += 1 }
    }

    var value: Int {
        count.withLock { $0 }
    }
}
