import HeraldCore

extension ConfigSection {
    /// The egress guard for a provider whose subscribers name their destinations: the environment's
    /// ``DestinationPolicy`` with this section's `deny` and `allow` replacing the lists of the same name;
    /// `nil` when that policy forbids nothing, so connections go direct.
    public func egressGuard(environment: ProviderEnvironment, connectTimeout: Duration) async throws -> EgressGuard? {
        let policy = try destinationPolicy(replacing: environment.destinationPolicy)
        guard !policy.permitsEverything else { return nil }
        return try await EgressGuard.start(policy: policy, connectTimeout: connectTimeout, logger: environment.logger)
    }
}
