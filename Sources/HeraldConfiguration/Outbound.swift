import HeraldCore

extension HeraldConfiguration {
    /// Outbound connections (`outbound`).
    public struct Outbound: Sendable, Equatable {
        /// A PEM file of extra trust roots for every outbound TLS connection (`outbound.ca_file`); default `nil` (system roots only).
        public var caFile: String?

        /// Creates an outbound section.
        public init(caFile: String? = nil) {
            self.caFile = caFile
        }

        /// Reads `outbound`, or the defaults when it is absent.
        init(section: ConfigSection?) throws(ConfigurationError) {
            self.init()
            guard let section else { return }
            try section.rejectUnknownKeys(schema: ConfigurationSchema.outbound)
            caFile = try section.nonEmptyString("ca_file")
        }
    }
}
