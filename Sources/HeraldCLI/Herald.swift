import ArgumentParser
import HeraldCore

/// The `herald` command.
@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "A unified push-notification server.",
        version: HeraldVersion.current,
        subcommands: [Serve.self, Send.self, Simulate.self, Vapid.self, Import.self, ConfigCommand.self, Migrate.self, Tokens.self, APNs.self],
        defaultSubcommand: Serve.self
    )
}
