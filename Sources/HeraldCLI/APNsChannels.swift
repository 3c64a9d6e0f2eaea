import ArgumentParser
import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldRuntime
import Logging

/// `herald apns channels create|list|read|delete`: an APNs provider's broadcast channels (iOS 18),
/// managed on Apple's management host with the provider's configured token, without a running server.
struct APNs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns", abstract: "APNs tools.", subcommands: [APNsChannels.self])
}

struct APNsChannels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "Create, list, read and delete an APNs provider's broadcast channels (iOS 18 Live Activities).",
        subcommands: [APNsChannelsCreate.self, APNsChannelsList.self, APNsChannelsRead.self, APNsChannelsDelete.self])
}

/// What every `herald apns channels` command takes, and the channels of the provider it names.
struct APNsChannelOptions: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file.")
    var config: String?

    @Option(name: .long, help: "The APNs provider's name in the configuration.")
    var provider: String = "apns"

    /// Builds the provider from the configuration, runs `body` with its channels, and releases it.
    func withChannels<T>(_ body: (any BroadcastChannels) async throws -> T) async throws -> T {
        let push: any PushProvider
        do {
            let (loaded, logger) = try LoadedConfiguration.forCommand(file: config, database: nil, logLevel: "warning", label: "herald.apns")
            let configuration = loaded.configuration
            guard let section = configuration.providers[provider] else {
                throw ConfigurationError(key: "providers.\(provider)", "is not configured")
            }
            guard section.kind == "apns", let kind = HeraldApplication.standardKinds.kind(named: section.kind) else {
                throw ConfigurationError(key: "providers.\(provider).kind", "is not apns")
            }
            let environment = ProviderEnvironment(
                extraTrustRootFiles: configuration.outbound.caFile.map { [$0] } ?? [], destinationPolicy: configuration.outbound.destinations,
                logger: logger, clock: .system)
            push = try await kind.makeProvider(name: provider, options: section.options, environment: environment)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("herald: configuration error: \(error)\n".utf8))
            throw ExitCode(78)
        }
        guard let channels = push.broadcastChannels else {
            await push.shutdown()
            FileHandle.standardError.write(Data("herald: \(provider) has no broadcast channels: they need token authentication and a topic\n".utf8))
            throw ExitCode(78)
        }
        do {
            let result = try await body(channels)
            await push.shutdown()
            return result
        } catch {
            await push.shutdown()
            guard let refusal = error as? BroadcastChannelError else { throw error }
            FileHandle.standardError.write(Data("herald: APNs answered \(refusal)\n".utf8))
            throw ExitCode(1)
        }
    }
}

struct APNsChannelsCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a channel and print its id.")

    @OptionGroup var options: APNsChannelOptions

    @Flag(name: .long, help: "Apple keeps the latest message for devices that follow the channel later (message-storage-policy 1).")
    var storeLastMessage = false

    func run() async throws {
        let created = try await options.withChannels { try await $0.createChannel(storesLastMessage: storeLastMessage) }
        print(created.id)
    }
}

struct APNsChannelsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print every channel's id, one a line.")

    @OptionGroup var options: APNsChannelOptions

    func run() async throws {
        for id in try await options.withChannels({ try await $0.channelIDs() }) { print(id) }
    }
}

struct APNsChannelsRead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "read", abstract: "Print a channel's storage policy and push type.")

    @OptionGroup var options: APNsChannelOptions

    @Argument(help: "The channel id.")
    var id: String

    func run() async throws {
        let channel = try await options.withChannels { try await $0.channel(id) }
        print("\(channel.id)\tmessage-storage-policy=\(channel.storesLastMessage ? 1 : 0)\tpush-type=\(channel.pushType)")
    }
}

struct APNsChannelsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a channel.")

    @OptionGroup var options: APNsChannelOptions

    @Argument(help: "The channel id.")
    var id: String

    func run() async throws {
        try await options.withChannels { try await $0.deleteChannel(id) }
    }
}
