import Foundation
import HeraldCore

extension HeraldConfiguration.Server {
    /// An HTTP Basic user and the realms it may use (`server.auth.<name>`, `pushd-api.md` §2.2).
    public struct User: Sendable, Equatable {
        /// The password: `password`, or the contents of `password_file` (one trailing newline removed). Required.
        public var password: String
        /// The realms this user may use (`realms`). Required; an empty list grants nothing.
        public var realms: Set<Realm>

        /// Creates a user.
        public init(password: String, realms: Set<Realm>) {
            self.password = password
            self.realms = realms
        }

        /// Reads one user; `password_file` is read here so the server only ever sees the secret.
        init(section: ConfigSection) throws(ConfigurationError) {
            try section.rejectUnknownKeys(schema: ConfigurationSchema.user)
            let inline = try section.string("password")
            let file = try section.nonEmptyString("password_file")
            let password: String
            switch (inline, file) {
            case (let inline?, nil):
                guard !inline.isEmpty else { throw ConfigurationError(key: section.keyPath("password"), "must not be empty") }
                password = inline
            case (nil, let file?):
                password = try SecretFile.read(file, key: section.keyPath("password_file"))
            case (_?, _?):
                throw ConfigurationError(key: section.keyPath("password_file"), "give either password or password_file, not both")
            case (nil, nil):
                throw ConfigurationError(key: section.keyPath("password"), "is required (or password_file)")
            }
            guard let names = try section.stringList("realms") else {
                throw ConfigurationError(key: section.keyPath("realms"), "is required (any of \(RealmNames.list))")
            }
            var realms = Set<Realm>()
            for name in names {
                realms.insert(try RealmNames.realm(name, key: section.keyPath("realms")))
            }
            self.init(password: password, realms: realms)
        }
    }
}

extension HeraldConfiguration.Server.User: CustomStringConvertible, CustomDebugStringConvertible {
    /// The user without its password, so printing a configuration never prints a secret.
    public var description: String {
        "User(password: <redacted>, realms: [\(realms.map(\.rawValue).sorted().joined(separator: ", "))])"
    }

    /// Same as ``description``: debug output must not reveal the password either.
    public var debugDescription: String { description }
}
