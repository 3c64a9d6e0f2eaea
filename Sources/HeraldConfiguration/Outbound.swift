import HeraldCore

extension HeraldConfiguration {
    /// Outbound connections (`outbound`).
    public struct Outbound: Sendable, Equatable {
        /// A PEM file of extra trust roots for every outbound TLS connection (`outbound.ca_file`); default `nil` (system roots only).
        public var caFile: String?
        /// Where subscriber-supplied destinations (webhook URLs, Web Push endpoints, WNS and MPNS channels) may lead
        /// (`outbound.deny`, `outbound.allow`: lists of addresses and CIDR blocks). Default: link-local, metadata and
        /// unspecified ranges denied (``DestinationPolicy/defaultDenyEntries``), nothing else restricted. Setting a
        /// list replaces its default; a provider's own `deny` or `allow` replaces the list of the same name for it.
        public var destinations: DestinationPolicy

        /// Creates an outbound section.
        public init(caFile: String? = nil, destinations: DestinationPolicy = .standard) {
            self.caFile = caFile
            self.destinations = destinations
        }

        /// Reads `outbound`, or the defaults when it is absent.
        init(section: ConfigSection?) throws(ConfigurationError) {
            self.init()
            guard let section else { return }
            try section.rejectUnknownKeys(schema: ConfigurationSchema.outbound)
            caFile = try section.nonEmptyString("ca_file")
            destinations = try section.destinationPolicy(replacing: .standard)
        }
    }
}
