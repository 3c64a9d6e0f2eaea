import ArgumentParser

/// `herald config`: Herald's configuration, without running the server.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check Herald's configuration.",
        subcommands: [ConfigCheck.self]
    )
}
