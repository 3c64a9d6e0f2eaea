import ArgumentParser
import Foundation
import HeraldConfiguration
import HeraldCore

/// `herald config check`: loads the configuration exactly as `herald serve` does (file, `HERALD_*`
/// environment, flags) and prints what it would run with.
struct ConfigCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a configuration and print the effective configuration as YAML.",
        discussion: """
            The file, the HERALD_* environment variables and the flags are merged and checked as `herald serve` \
            does before it starts; defaults are filled in and every secret is printed as ***. An invalid \
            configuration prints one line naming the key on standard error and exits 78. Provider files \
            (keys, certificates, service accounts) are read only when `herald serve` builds the providers.
            """
    )

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let loaded: LoadedConfiguration
        do {
            (loaded, _) = try LoadedConfiguration.forCommand(
                file: options.config, port: options.port, database: options.database, logLevel: options.logLevel, label: "herald.config")
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("herald: configuration error: \(error)\n".utf8))
            throw ExitCode(78)
        }
        FileHandle.standardOutput.write(Data(loaded.configuration.effectiveYAML().utf8))
    }
}
