import HeraldCore
import NIOSSL

extension ConfigSection {
    /// The client TLS configuration: system roots, `outbound.ca_file` and this provider's `ca_file`.
    public func outboundTLS(environment: ProviderEnvironment) throws(ConfigurationError) -> TLSConfiguration {
        var roots = environment.extraTrustRootFiles
        if let caFile = try string("ca_file") { roots.append(caFile) }
        do {
            return try OutboundTLS.clientConfiguration(extraRootFiles: roots)
        } catch {
            throw ConfigurationError(key: keyPath("ca_file"), "cannot read trust roots: \(error)")
        }
    }
}
