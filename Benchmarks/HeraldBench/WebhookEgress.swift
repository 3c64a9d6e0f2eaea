import ArgumentParser
import Foundation
import HeraldTestSupport

/// One event to N webhook subscribers, with every connection through the egress guard (the default
/// `outbound.deny`) and with no guard (`outbound: {deny: []}`): what checking destinations after DNS costs.
struct WebhookEgress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook-egress",
        abstract: "Webhook fan-out through the egress guard, against direct connections.")

    @Option(help: "Webhook subscribers of the published event.")
    var subscribers = 100_000

    @Option(help: "Pairs of runs (direct, then guarded), alternating; the ratio's median is reported.")
    var runs = 3

    @Option(help: "The herald binary to measure (a release build).")
    var herald = ".build/release/herald"

    @Option(help: "Working directory (databases, logs).")
    var directory = "/tmp/herald-webhook-egress"

    func run() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        say("machine: \(Machine.describe())")
        say("\(subscribers) webhook subscribers on one loopback receiver (64 connections per host)")
        let receiver = try await WebhookReceiver.start()
        let fanOut = WebhookFanOutRun(herald: herald, directory: directory, subscribers: subscribers)
        var ratios: [Double] = []
        var rows: [String] = []
        for run in 1...runs {
            let direct = try await fanOut.measure(
                label: "direct, `deny: []` (run \(run))", receiver: receiver, expected: subscribers, outbound: "outbound: {deny: []}"
            ) { receiver.url("/s/\($0)") }
            let guarded = try await fanOut.measure(label: "through the guard (run \(run))", receiver: receiver, expected: subscribers) {
                receiver.url("/s/\($0)")
            }
            rows += [direct.row, guarded.row]
            ratios.append(guarded.rate / direct.rate)
        }
        say("")
        say("| run | notifications/s | publish → last answer | Herald peak RSS | Herald CPU (cores) |")
        say("|---|---:|---:|---:|---:|")
        for row in rows { say(row) }
        say("")
        say(Result.ratioSummary(ratios, of: "rate through the guard / direct"))
        await receiver.stop()
    }
}
