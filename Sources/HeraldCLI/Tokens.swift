import ArgumentParser
import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldIntake
import HeraldRuntime
import HeraldStore
import Logging

/// `herald tokens create|list|revoke`: API tokens, written to the configured database directly,
/// so an operator can issue the first one before any credential exists. Every running node sees
/// the change within a second.
struct Tokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke API tokens (Authorization: Bearer).",
        subcommands: [TokensCreate.self, TokensList.self, TokensRevoke.self]
    )
}

/// The options every `herald tokens` command takes, and the store they open.
struct TokenStoreOptions: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file (its providers and server.database are used).")
    var config: String?

    @Option(name: .long, help: "Database URL: sqlite:PATH or postgres://user:password@host:5432/db (overrides server.database).")
    var database: String?

    /// Runs `body` with the configured store open, then closes it.
    func withStore<T>(_ body: (any HeraldStore, HeraldConfiguration) async throws -> T) async throws -> T {
        let loaded: LoadedConfiguration
        let store: any HeraldStore
        do {
            let logger: Logger
            (loaded, logger) = try LoadedConfiguration.forCommand(file: config, database: database, logLevel: "warning", label: "herald.tokens")
            store = try HeraldApplication.openStore(database: loaded.configuration.server.database, logger: logger)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("herald: configuration error: \(error)\n".utf8))
            throw ExitCode(78)
        }
        let running = Task { try? await store.run() }
        defer { running.cancel() }
        do {
            let result = try await body(store, loaded.configuration)
            try? await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }
}

struct TokensCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a token and print it, once: only its digest is stored.",
        discussion: "Example: herald tokens create --name chat-app --realms publish,register --providers apns-a,fcm-a --events 'chat.*' --expires 90d"
    )

    @OptionGroup var options: TokenStoreOptions

    @Option(name: .long, help: "Its name (letters, digits, - _ .), to list and revoke it by.")
    var name: String

    @Option(name: .long, help: "Comma-separated realms: register, publish, listen, admin.")
    var realms: String

    @Option(name: .long, help: "Comma-separated providers of its app; without: every provider.")
    var providers: String?

    @Option(name: .long, help: "Comma-separated glob patterns of the events it may publish and subscribe to; without: every event.")
    var events: String?

    @Option(name: .long, help: "Lifetime: seconds, or with s, m, h or d (90d); without: until revoked.")
    var expires: String?

    func run() async throws {
        var realmSet: Set<Realm> = []
        for raw in Self.list(realms) {
            guard let realm = Realm(rawValue: raw) else { throw ValidationError("--realms: unknown realm \(raw)") }
            realmSet.insert(realm)
        }
        let lifetime = try expires.map { text in
            guard let lifetime = APIToken.lifetime(text) else { throw ValidationError("--expires: expected seconds or 90d, got \(text)") }
            return lifetime
        }
        let scopes = TokenScopes(realms: realmSet, providers: providers.map { Set(Self.list($0)) }, events: events.map(Self.list))
        try await options.withStore { store, configuration in
            let created: Intake.CreatedToken
            do {
                created = try Intake.mintToken(
                    name: name, scopes: scopes, expiresIn: lifetime, now: Int64(Date().timeIntervalSince1970),
                    providers: Set(configuration.providers.keys))
            } catch let error as IntakeError {
                throw ValidationError(error.message)
            }
            guard try await store.createToken(created.token, digest: created.digest) else {
                throw ValidationError(IntakeError.nameTaken(name).message)
            }
            print(created.secret)
        }
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

struct TokensList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the tokens (never their secrets).")

    @OptionGroup var options: TokenStoreOptions

    func run() async throws {
        try await options.withStore { store, _ in
            print(["NAME", "REALMS", "PROVIDERS", "EVENTS", "CREATED", "EXPIRES", "LAST USED"].joined(separator: "\t"))
            for stored in try await store.storedTokens() {
                let token = stored.token
                func time(_ seconds: Int64?) -> String {
                    seconds.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval($0))) } ?? "-"
                }
                print([
                    token.name, token.scopes.realms.map(\.rawValue).sorted().joined(separator: ","),
                    token.scopes.providers.map { $0.sorted().joined(separator: ",") } ?? "*", token.scopes.events?.joined(separator: ",") ?? "*",
                    time(token.createdAt), time(token.expiresAt), time(token.lastUsedAt),
                ].joined(separator: "\t"))
            }
        }
    }
}

struct TokensRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a token: every node refuses it within a second.")

    @OptionGroup var options: TokenStoreOptions

    @Argument(help: "The token's name.")
    var name: String

    func run() async throws {
        try await options.withStore { store, _ in
            guard try await store.revokeToken(named: name) else {
                FileHandle.standardError.write(Data("herald: no token named \(name)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
