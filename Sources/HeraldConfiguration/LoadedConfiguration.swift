/// A validated configuration and what the caller should log about it at start-up.
public struct LoadedConfiguration: Sendable {
    /// The configuration to run with.
    public var configuration: HeraldConfiguration
    /// Lines to log as warnings: unmatched `HERALD_*` variables, risky settings.
    public var warnings: [String]

    /// Creates a loaded configuration.
    public init(configuration: HeraldConfiguration, warnings: [String] = []) {
        self.configuration = configuration
        self.warnings = warnings
    }
}
