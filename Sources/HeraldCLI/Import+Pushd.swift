import ArgumentParser
import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldImport
import HeraldRedis
import HeraldRuntime
import HeraldStore
import Logging

/// `herald import pushd`: reads an rs/pushd Redis database into the store (pushd-api.md §15).
///
/// Thin on purpose: the reading and mapping are `HeraldImport`'s, which the tests call directly.
struct ImportPushd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushd",
        abstract: "Import an rs/pushd Redis database: subscribers with their ids, subscriptions, event statistics.",
        discussion: """
            Idempotent: running it again updates the subscribers by id. Malformed records are skipped and \
            counted; the summary lists them. Exits non-zero when Redis cannot be read.
            """
    )

    @Option(name: .long, help: "The pushd database: redis://[:password@]HOST:PORT/DB.")
    var redis: String

    @Option(name: .long, help: "YAML configuration file (its providers and server.database are used).")
    var config: String?

    @Option(name: .long, help: "Database URL: sqlite:PATH or postgres://user:password@host:5432/db (overrides server.database).")
    var database: String?

    @Flag(name: .long, help: "Read and validate everything and print the summary; write nothing.")
    var dryRun = false

    @Option(name: .long, help: "Subscribers per Redis pipeline and per store transaction.")
    var batchSize = 2_000

    @Option(name: .long, help: "trace|debug|info|notice|warning|error|critical (overrides log.level).")
    var logLevel: String?

    func validate() throws {
        guard RedisURL(redis) != nil else { throw ValidationError("--redis: expected redis://HOST:PORT/DB, got \"\(redis)\"") }
        guard batchSize > 0, batchSize <= 50_000 else { throw ValidationError("--batch-size: expected 1...50000") }
    }

    func run() async throws {
        let loaded: LoadedConfiguration
        let store: (any HeraldStore)?
        let logger: Logger
        do {
            (loaded, logger) = try LoadedConfiguration.forCommand(
                file: config, database: database, logLevel: logLevel, label: "herald.import")
            store = dryRun ? nil : try HeraldApplication.openStore(database: loaded.configuration.server.database, logger: logger)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("herald: configuration error: \(error)\n".utf8))
            throw ExitCode(78)
        }
        // Validated in `validate()`.
        let url = RedisURL(redis)!
        var kinds: [String: String] = [:]
        for (name, provider) in loaded.configuration.providers {
            kinds[name] = provider.kind
        }
        let connection = RedisConnection(url: url, timeout: .seconds(30))
        let importer = PushdImporter(
            redis: connection, store: store, options: PushdImportOptions(providerKinds: kinds, batchSize: batchSize, dryRun: dryRun))
        let display = ImportProgressDisplay(terminal: isatty(STDERR_FILENO) == 1)

        // A PostgreSQL store connects only while it runs.
        let storeTask = store.map { store in Task { try? await store.run() } }
        let outcome: Result<PushdImportReport, PushdImportError>
        do {
            outcome = .success(try await importer.run { display.show($0) })
        } catch {
            outcome = .failure(error)
        }
        display.finish()
        await connection.close()
        storeTask?.cancel()
        try? await store?.close()

        switch outcome {
        case .success(let report):
            print(report.summary)
        case .failure(let error):
            FileHandle.standardError.write(Data("herald: import pushd from \(url): \(error)\n".utf8))
            throw ExitCode(error.isRedisFailure ? 69 : 74)
        }
    }
}
