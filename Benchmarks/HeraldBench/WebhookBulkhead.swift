import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore
import HeraldStoreSQLite
import HeraldTestSupport

/// One event to N webhook subscribers, a share of whom point at a host that accepts connections
/// and never answers, against the same event with none hanging: the rate at which the healthy
/// subscribers are served, as a ratio (the bulkheads of issue 22).
struct WebhookBulkhead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook-bulkhead",
        abstract: "Healthy webhook subscribers' rate with a share of hanging ones, against none hanging.")

    @Option(help: "Webhook subscribers of the published event.")
    var subscribers = 100_000

    @Option(help: "Percent of them whose host accepts and never answers.")
    var hungPercent = 1.0

    @Option(help: "Pairs of runs (none hanging, then some), alternating; the ratio's median is reported.")
    var runs = 3

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Working directory (databases, logs).")
    var directory = "/tmp/herald-webhook-bulkhead"

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        say("machine: \(Machine.describe())")
        let receiver = try await WebhookReceiver.start()
        let silent = try SilentListener()
        defer { silent.close() }
        let every = max(1, Int((100 / max(hungPercent, 0.001)).rounded()))
        let hung = hungPercent > 0 ? (subscribers + every - 1) / every : 0
        let healthy = subscribers - hung
        say("\(subscribers) webhook subscribers, \(hung) of them (every \(every)th) on a host that never answers; \(healthy) healthy")

        let fanOut = WebhookFanOutRun(herald: herald, directory: directory, subscribers: subscribers)
        var ratios: [Double] = []
        var rows: [String] = []
        for run in 1...runs {
            let base = try await fanOut.measure(label: "none hanging (run \(run))", receiver: receiver, expected: subscribers) { index in
                receiver.url("/s/\(index)")
            }
            let withHung = try await fanOut.measure(label: "\(hungPercent) % hanging (run \(run))", receiver: receiver, expected: healthy) { index in
                index % every == 0 ? silent.url("/h/\(index)") : receiver.url("/s/\(index)")
            }
            rows += [base.row, withHung.row]
            ratios.append(withHung.rate / base.rate)
        }
        say("")
        say("| run | healthy notifications/s | publish → last healthy answer | Herald peak RSS | Herald CPU (cores) |")
        say("|---|---:|---:|---:|---:|")
        for row in rows { say(row) }
        say("")
        say(Result.ratioSummary(ratios, of: "healthy rate with hanging subscribers / without"))
        await receiver.stop()
    }
}
