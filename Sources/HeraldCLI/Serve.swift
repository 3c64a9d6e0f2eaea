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

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let loaded: LoadedConfiguration
        let application: HeraldApplication
        do {
            let logger: Logger
            (loaded, logger) = try LoadedConfiguration.forCommand(
                file: options.config, port: options.port, database: options.database, logLevel: options.logLevel, label: "herald")
            let openFiles = FileDescriptorLimit.raiseToHardLimit(logger: logger)
            let eventSource = loaded.configuration.eventSource
            if eventSource.enabled, let openFiles, openFiles < UInt64(eventSource.maxListeners) {
                // Past the limit, accepting a connection fails: listeners would be refused before the cap answers 503.
                logger.warning("the open-file limit is below event_source.max_listeners", metadata: [
                    "limit": "\(openFiles)", "max_listeners": "\(eventSource.maxListeners)",
                ])
            }
            application = try await HeraldApplication(configuration: loaded.configuration, logger: logger)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("herald: configuration error: \(error)\n".utf8))
            throw ExitCode(78)
        }
        try await application.run()
    }
}
