import ArgumentParser

/// `herald import`: takes over another push server's database into the store `serve` uses.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take over another push server's database into Herald's store.",
        subcommands: [ImportPushd.self]
    )
}
