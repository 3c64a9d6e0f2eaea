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
    var inFlight = 8000

    @Option(help: "Herald's delivery.concurrent_jobs: publish jobs (or parts of a shared publish, on PostgreSQL) sent at once; Herald's default (BENCHMARKS.md's rounds before the fifth PostgreSQL one used 1).")
    var concurrentJobs = 4

    @Option(help: "Sink runs of Herald, each between two h2load runs whose mean it is compared with; the ratio's median is reported.")
    var runs = 1

    @Option(help: "Requests h2load sends to the sink.")
    var h2loadRequests = 200_000

    @Option(help: "Herald's delivery.batch_size: the audience page.")
    var batchSize = 1000

    @Option(name: .customLong("provider-option"), help: "key=value added to the provider's configuration (repeatable), e.g. max_connections=8.")
    var providerOptions: [String] = []

    @Option(help: "The HTTP/2 engine of Herald's provider: nio or nghttp2 (its http2_engine); Herald's default (nghttp2) when not given.")
    var http2Engine: String?

    @Option(help: "Working directory (database, certificates, logs); each benchmark has its own default.")
    var directory: String?

    @Flag(help: "Publish with incrementBadge=false&badge=1: the same payload, but no subscriber's stored badge is written.")
    var keepBadges = false

    @Option(help: "sqlite (a file in the working directory), or postgres (a PostgreSQL server this run starts on this machine).")
    var database = "sqlite"

    @Option(help: "Publishes of the same event sent and waited for before the measured one (not measured): 0 measures a first fan-out after the registrations, 1 or more a later one, which finds the badges earlier fan-outs wrote. The sink's CPU per request then covers every publish's requests.")
    var earlierPublishes = 0

    @Option(help: "Herald nodes sharing the database (postgres only); the publish goes to the first.")
    var nodes = 1

    @Option(help: "How Herald reaches PostgreSQL: tcp (127.0.0.1) or socket (the server's Unix-domain socket).")
    var postgresConnection = "tcp"

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
        var driver = FanOutDriver(subscribers: subscribers, herald: herald, directory: directory, inFlight: inFlight, batchSize: batchSize)
        driver.concurrentJobs = max(1, concurrentJobs)
        driver.earlierPublishes = max(0, earlierPublishes)
        switch database {
        case "sqlite":
            guard nodes == 1 else { throw ValidationError("--nodes needs --database postgres: SQLite serves one node") }
        case "postgres":
            driver.nodes = max(1, nodes)
            driver.usesPostgres = true
            guard ["tcp", "socket"].contains(postgresConnection) else { throw ValidationError("--postgres-connection is tcp or socket") }
            driver.postgresOverSocket = postgresConnection == "socket"
        default:
            throw ValidationError("--database is sqlite or postgres")
        }
        if keepBadges {
            driver.publishForm += "&incrementBadge=false&badge=1"
        }
        return driver
    }

    /// The provider's tuning keys as YAML lines indented for a provider entry: `defaults`, then
    /// `--http2-engine`, then `--provider-option`s, which replace earlier values of the same key.
    func providerOptionLines(defaults: KeyValuePairs<String, String>) throws -> String {
        var options: [(key: String, value: String)] = defaults.map { ($0.key, $0.value) }
        if let http2Engine {
            guard ["nio", "nghttp2"].contains(http2Engine) else { throw ValidationError("--http2-engine is nio or nghttp2") }
            options.append(("http2_engine", http2Engine))
        }
        for option in providerOptions {
            guard let equals = option.firstIndex(of: "="), equals != option.startIndex else {
                throw BenchError("--provider-option expects key=value, got \(option)")
            }
            let key = String(option[..<equals])
            let value = String(option[option.index(after: equals)...])
            if let index = options.firstIndex(where: { $0.key == key }) {
                options[index].value = value
            } else {
                options.append((key, value))
            }
        }
        return options.map { "      \($0.key): \($0.value)" }.joined(separator: "\n")
    }
}
