import ArgumentParser
import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldRuntime
import HeraldServer
import Logging

/// `herald serve`: runs the server until SIGTERM or SIGINT.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the Herald server (the default).")

    @Option(name: .long, help: "YAML configuration file.")
    var config: String?

    @Option(name: .long, help: "HTTP port (overrides server.http.port).")
    var port: Int?

    @Option(name: .long, help: "Database URL: sqlite:PATH or postgres://user:password@host:5432/db (overrides server.database).")
    var database: String?

    @Option(name: .long, help: "trace|debug|info|notice|warning|error|critical (overrides log.level).")
    var logLevel: String?

    func run() async throws {
        let loaded: LoadedConfiguration
        let application: HeraldApplication
        do {
            let logger: Logger
            (loaded, logger) = try LoadedConfiguration.forCommand(
                file: config, port: port, database: database, logLevel: logLevel, label: "herald")
            FileDescriptorLimit.raiseToHardLimit(logger: logger)
            application = try await HeraldApplication(configuration: loaded.configuration, logger: logger)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("herald: configuration error: \(error)\n".utf8))
            throw ExitCode(78)
        }
        try await application.run()
    }
}
