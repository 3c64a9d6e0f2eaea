import ArgumentParser
import Foundation
import HeraldCore
import HeraldSimulators
import HeraldStore

/// `herald-bench`: Herald's fan-out benchmark (BENCHMARKS.md has the method and the latest results).
@main
struct HeraldBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-bench",
        abstract: "Measure Herald's APNs and FCM fan-out (and its gorush front door) against their simulators and an h2o sink, with h2load as the yardstick.",
        subcommands: [APNsFanOut.self, FCMFanOut.self, APNsTransport.self, NIOHTTP2Floor.self, AHCHTTP2Baseline.self, Soak.self, WebhookBulkhead.self, WebhookEgress.self, GorushFanOut.self, ImportPushdBench.self, APIBench.self, SSEBench.self, IdleMemory.self, TokenTiming.self, UnifiedPushBench.self],
        defaultSubcommand: APNsFanOut.self
    )
}
