import ArgumentParser
import Foundation

/// The options every fan-out benchmark takes.
struct FanOutOptions: ParsableArguments {
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

    @Option(help: "Working directory (database, certificates, logs); each benchmark has its own default.")
    var directory: String?

    /// Whether the run against Herald's simulator is asked for.
    var measuresSimulator: Bool { target == "simulator" || target == "both" }

    /// Whether the runs against the h2o sink are asked for.
    var measuresSink: Bool { target == "sink" || target == "both" }

    /// Empties the working directory (`defaultDirectory` unless one was given) and returns the
    /// driver that seeds and measures in it.
    func prepareDriver(defaultDirectory: String) throws -> FanOutDriver {
        let directory = self.directory ?? defaultDirectory
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return FanOutDriver(subscribers: subscribers, herald: herald, directory: directory, inFlight: inFlight)
    }
}
