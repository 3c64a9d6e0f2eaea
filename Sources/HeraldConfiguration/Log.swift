import HeraldCore
import Logging

extension HeraldConfiguration {
    /// Logging (`log`).
    public struct Log: Sendable, Equatable {
        /// The lowest level logged to standard error (`log.level`); default `info`.
        public var level: Logger.Level

        /// Creates a log section.
        public init(level: Logger.Level = .info) {
            self.level = level
        }

        /// The accepted level names, for messages.
        static let levelNames = Logger.Level.allCases.map(\.rawValue).joined(separator: "|")

        /// Reads a level name (case-insensitive); `key` is the key or flag named in errors.
        static func level(_ text: String, key: String) throws(ConfigurationError) -> Logger.Level {
            guard let level = Logger.Level(rawValue: text.trimmingWhitespace().lowercased()) else {
                throw ConfigurationError(key: key, "expected one of \(levelNames), got \"\(text)\"")
            }
            return level
        }

        /// Reads `log`, or the defaults when it is absent.
        init(section: ConfigSection?) throws(ConfigurationError) {
            self.init()
            guard let section else { return }
            try section.rejectUnknownKeys(schema: ConfigurationSchema.log)
            if let text = try section.string("level") {
                level = try Self.level(text, key: section.keyPath("level"))
            }
        }
    }
}
