import HeraldConfiguration
import HeraldCore
import HeraldIntake

/// `compat.choominator`, read (compat.md §5.1): the provider devices register with, and where the
/// two ports listen.
struct ChoominatorSettings: Sendable, Equatable {
    /// The provider name devices are registered with and notifications go through.
    var provider: String
    /// The host whose every resolved address is bound (the original's `-l`).
    var host: String
    /// The registration port (the original's `-g`).
    var registrationPort: Int
    /// The notification port (the original's `-n`).
    var notificationPort: Int

    /// The defaults of compat.md §5.1; the provider is `apns` when none is named.
    static let defaultProvider = "apns"
    static let defaultHost = "localhost"
    static let defaultRegistrationPort = 7734
    static let defaultNotificationPort = 7874

    /// Reads the section; the loader checked its keys, shapes and provider name already.
    ///
    /// Port 0 (the kernel's choice) passes here although the loader refuses it: only a caller that
    /// builds its configuration in code, such as the tests' server, can ask for it.
    init(section: ConfigSection, hasProvider: (String) -> Bool) throws(ConfigurationError) {
        provider = try section.frontEndProvider(default: Self.defaultProvider, exists: hasProvider)
        host = try section.frontEndHost(default: Self.defaultHost)
        registrationPort = try section.int("registration_port", in: 0...65535) ?? Self.defaultRegistrationPort
        notificationPort = try section.int("notification_port", in: 0...65535) ?? Self.defaultNotificationPort
    }
}
