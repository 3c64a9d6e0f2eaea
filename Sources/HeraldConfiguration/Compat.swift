import HeraldCore

extension HeraldConfiguration {
    /// The stand-ins for other push gateways (`compat`, `compat.md`); each `nil` (off) by default.
    ///
    /// Sections are checked for unknown keys, value shapes, port ranges and provider names,
    /// and otherwise kept raw for the front-ends to read.
    public struct Compat: Sendable, Equatable {
        /// apns-ms (`compat.apns_ms`: `provider`, `host`, `port`, `tls`); default `nil` (off).
        public var apnsMS: ConfigSection?
        /// Choominator/CodexTextor pushd (`compat.choominator`: `provider`, `host`, `registration_port`, `notification_port`); default `nil` (off).
        public var choominator: ConfigSection?
        /// push2mob (`compat.push2mob`: `apns_provider`, `gcm_provider`, `apns_bind`, `gcm_bind`, `device_token_format`); default `nil` (off).
        public var push2mob: ConfigSection?
        /// suj-pusher (`compat.suj_pusher`: `redis`, `namespace`, `apns_endpoints`, `api_keys`, `legacy_gcm_endpoint`, `wns_token_endpoint`, `wpns_endpoint`); default `nil` (off).
        public var sujPusher: ConfigSection?
        /// gorush (`compat.gorush`: `ios_provider`, `android_provider`, `huawei_provider`); default `nil` (off).
        public var gorush: ConfigSection?
        /// The Matrix push gateway (`compat.matrix`: `apps`, each with `provider` and Sygnal's
        /// options); default `nil` (off).
        public var matrix: ConfigSection?

        /// Creates a compat section; every front-end is off unless given.
        public init(
            apnsMS: ConfigSection? = nil,
            choominator: ConfigSection? = nil,
            push2mob: ConfigSection? = nil,
            sujPusher: ConfigSection? = nil,
            gorush: ConfigSection? = nil,
            matrix: ConfigSection? = nil
        ) {
            self.apnsMS = apnsMS
            self.choominator = choominator
            self.push2mob = push2mob
            self.sujPusher = sujPusher
            self.gorush = gorush
            self.matrix = matrix
        }

        /// Reads `compat`; `providers` are the configured provider names that front-ends may refer to.
        init(section: ConfigSection?, providers: Set<String>) throws(ConfigurationError) {
            self.init()
            guard let section else { return }
            try section.rejectUnknownKeys(schema: ConfigurationSchema.compat)
            let check = CompatChecker(providers: providers)

            if let apnsMS = try section.section("apns_ms") {
                try check.shape(apnsMS, ConfigurationSchema.apnsMS)
                try check.provider(apnsMS, "provider")
                _ = try apnsMS.port("port")
                // The files are checked now, so a missing one is a configuration error at start-up.
                _ = try apnsMS.section("tls").map { tls throws(ConfigurationError) in try ListenerTLS(section: tls) }
                self.apnsMS = apnsMS
            }
            if let choominator = try section.section("choominator") {
                try check.shape(choominator, ConfigurationSchema.choominator)
                try check.provider(choominator, "provider")
                _ = try choominator.port("registration_port")
                _ = try choominator.port("notification_port")
                self.choominator = choominator
            }
            if let push2mob = try section.section("push2mob") {
                try check.shape(push2mob, ConfigurationSchema.push2mob)
                try check.provider(push2mob, "apns_provider")
                try check.provider(push2mob, "gcm_provider")
                if let format = try push2mob.string("device_token_format"), format != "hex", format != "base64" {
                    throw ConfigurationError(key: push2mob.keyPath("device_token_format"), "expected hex or base64, got \"\(format)\"")
                }
                self.push2mob = push2mob
            }
            if let sujPusher = try section.section("suj_pusher") {
                try check.shape(sujPusher, ConfigurationSchema.sujPusher)
                if let apiKeys = try sujPusher.section("api_keys") {
                    for key in apiKeys.values.keys { try check.provider(apiKeys, key, secretKey: true) }
                }
                self.sujPusher = sujPusher
            }
            if let gorush = try section.section("gorush") {
                try check.shape(gorush, ConfigurationSchema.gorush)
                try check.provider(gorush, "ios_provider")
                try check.provider(gorush, "android_provider")
                try check.provider(gorush, "huawei_provider")
                self.gorush = gorush
            }
            if let matrix = try section.section("matrix") {
                try check.shape(matrix, ConfigurationSchema.matrix)
                let apps = try matrix.section("apps")
                for app in apps?.values.keys ?? [] {
                    guard let entry = try apps?.section(app) else { continue }
                    guard entry.contains("provider") else {
                        throw ConfigurationError(key: entry.keyPath("provider"), "required: the provider the app's pushes go through")
                    }
                    try check.provider(entry, "provider")
                }
                self.matrix = matrix
            }
        }
    }
}
