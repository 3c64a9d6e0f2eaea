import Foundation
import HeraldConfiguration
import HeraldRuntime
import Logging

extension LoadedConfiguration {
    /// Loads the configuration a command was given (file, environment, flags), starts logging at
    /// its level on standard error, and logs the loader's warnings; returns it with a logger
    /// named `label`.
    ///
    /// Every command that runs with Herald's configuration starts this way, so they read it alike.
    static func forCommand(
        file: String?, port: Int? = nil, database: String?, logLevel: String?, label: String
    ) throws -> (loaded: LoadedConfiguration, logger: Logger) {
        let loaded = try ConfigurationLoader(kinds: HeraldApplication.standardKinds).load(
            file: file,
            environment: ProcessInfo.processInfo.environment,
            overrides: ConfigurationOverrides(port: port, database: database, logLevel: logLevel)
        )
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = loaded.configuration.log.level
            return handler
        }
        let logger = Logger(label: label)
        for warning in loaded.warnings { logger.warning("\(warning)") }
        return (loaded, logger)
    }
}
