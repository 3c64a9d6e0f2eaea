import HeraldCore

extension ConfigSection {
    /// `timeout` (seconds for one request, default 30) and `max_concurrent` (deliveries in flight, default 256).
    func providerHTTPSettings() throws(ConfigurationError) -> ProviderHTTPSettings {
        var settings = ProviderHTTPSettings()
        if let timeout = try duration("timeout", minimum: .milliseconds(1)) { settings.requestTimeout = timeout }
        if let limit = try int("max_concurrent", in: 1...100_000) { settings.maxConcurrentDeliveries = limit }
        return settings
    }
}
