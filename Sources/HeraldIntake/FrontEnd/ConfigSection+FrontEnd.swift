import HeraldCore

extension ConfigSection {
    /// The provider a front-end sends through: `provider`, or `defaultName` when absent; it must
    /// be configured (`exists`).
    public func frontEndProvider(default defaultName: String, exists: (String) -> Bool) throws(ConfigurationError) -> String {
        let provider = try string("provider") ?? defaultName
        guard exists(provider) else {
            throw ConfigurationError(key: keyPath("provider"), "no provider named \"\(provider)\"")
        }
        return provider
    }

    /// The address a front-end listens on: `host`, or `defaultHost` when absent or blank.
    public func frontEndHost(default defaultHost: String) throws(ConfigurationError) -> String {
        let host = try string("host")?.trimmingWhitespace() ?? ""
        return host.isEmpty ? defaultHost : host
    }
}
