import HeraldCore
import HeraldConfiguration
import ServiceLifecycle

/// A front door of Herald, plugged in like a provider kind: the rs/pushd UDP port, and the
/// stand-ins for other gateways (apns-ms, Choominator, gorush, push2mob, suj-pusher).
///
/// A front-end turns its clients' wire protocol into ``Intake`` operations and maps
/// ``IntakeError`` to its own answers; it has no delivery path of its own. The composition root
/// keeps one list of kinds and asks each for its services, so adding a front-end touches no other.
public protocol FrontEndKind: Sendable {
    /// The front-end's name: the origin of what it sends (in feedback, dead letters and metrics).
    var name: String { get }

    /// The services that serve this front-end, or none when its configuration leaves it off.
    ///
    /// Called once at start-up, before anything listens; throws ``ConfigurationError`` for
    /// settings that cannot work.
    func makeServices(context: FrontEndContext) throws -> [any Service]

    /// Providers of the front-end's own, built beside the configured ones before any service
    /// starts (suj-pusher's, whose credentials come with each message); none by default.
    ///
    /// Their names must be ones no configuration uses; the front-end's raw sends name them, and
    /// the pipeline delivers, retries and dead-letters through them like any other provider. They
    /// are built by the kinds of `kinds` (this build's), so no front-end names a provider target.
    func makeProviders(
        configuration: HeraldConfiguration, environment: ProviderEnvironment, kinds: ProviderKindRegistry
    ) async throws -> [any PushProvider]
}

extension FrontEndKind {
    /// Most front-ends send through the configured providers only.
    public func makeProviders(
        configuration: HeraldConfiguration, environment: ProviderEnvironment, kinds: ProviderKindRegistry
    ) async throws -> [any PushProvider] {
        []
    }
}
