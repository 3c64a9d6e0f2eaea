import ArgumentParser
import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldImport
import HeraldRuntime
import HeraldStore
import Logging

/// `herald migrate`: copies a one-machine installation (SQLite) into PostgreSQL, then verifies
/// the copy by counting both.
///
/// Thin on purpose: the copying is `HeraldImport`'s ``StoreMigrator``, which the tests call directly.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy an SQLite database into PostgreSQL: subscribers, statistics, pending work, feedback, dead letters.",
        discussion: """
            Stop the server using the SQLite database first. Every row keeps its id; running it again copies only what \
            is missing, so an interrupted migration can be run again. At the end both databases are counted per kind of \
            row; the command exits non-zero if the destination does not hold what it should.
            """
    )

    @Option(name: .long, help: "The database to copy: sqlite:PATH (an existing file).")
    var from: String

    @Option(name: .long, help: "The database to copy into: postgres://user:password@host:5432/db.")
    var to: String

    @Option(name: .long, help: "Rows per page read and per transaction written.")
    var batchSize = 2_000

    @Option(name: .long, help: "trace|debug|info|notice|warning|error|critical (overrides log.level).")
    var logLevel: String?

    func validate() throws {
        do {
            guard case .sqlite = try DatabaseLocation.parse(from, key: "--from") else {
                throw ValidationError("--from: expected an SQLite database (sqlite:PATH), got \"\(from)\"")
            }
            guard case .postgres = try DatabaseLocation.parse(to, key: "--to") else {
                throw ValidationError("--to: expected a PostgreSQL URL (postgres://user:password@host:5432/db), got \"\(to)\"")
            }
        } catch let error as ConfigurationError {
            throw ValidationError("\(error)")
        }
        guard batchSize > 0, batchSize <= 50_000 else { throw ValidationError("--batch-size: expected 1...50000") }
    }

    func run() async throws {
        let logger: Logger
        let source: any HeraldStore & StoreExport
        let destination: any HeraldStore
        do {
            (_, logger) = try LoadedConfiguration.forCommand(file: nil, database: nil, logLevel: logLevel, label: "herald.migrate")
            source = try HeraldApplication.openMigrationSource(database: from)
            destination = try HeraldApplication.openStore(database: to, logger: logger)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
            throw ExitCode(78)
        }
        let display = ImportProgressDisplay(terminal: isatty(STDERR_FILENO) == 1)
        let migrator = StoreMigrator(source: source, destination: destination, batchSize: batchSize, logger: logger)

        // A PostgreSQL store connects (and creates its schema) only while it runs.
        let storeTask = Task { try? await destination.run() }
        let outcome: Result<StoreMigrationReport, StoreMigrationError>
        do {
            outcome = .success(try await migrator.run { display.show($0) })
        } catch {
            outcome = .failure(error)
        }
        display.finish()
        storeTask.cancel()
        try? await destination.close()
        try? await source.close()

        switch outcome {
        case .success(let report):
            print(report.summary)
            // EX_DATAERR: the copy ran, but the destination does not hold what it should (or the
            // source changed meanwhile, so it may not).
            if !report.verified { throw ExitCode(65) }
        case .failure(let error):
            FileHandle.standardError.write(Data("herald: migrate: \(error)\n".utf8))
            throw ExitCode(74)
        }
    }
}
