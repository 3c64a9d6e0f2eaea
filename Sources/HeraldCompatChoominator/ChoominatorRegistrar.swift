import HeraldCore
import HeraldIntake
import HeraldStore
import Logging
import NIOCore

/// The registration port (compat.md §5.2): registers the device (or pings it) and subscribes it to
/// its group unless it already is.
struct ChoominatorRegistrar: ChoominatorHandler {
    let intake: Intake
    /// The provider devices are registered with.
    let provider: String
    let logger: Logger

    var port: String { "registration" }

    func handle(_ datagram: ByteBuffer) async throws(ChoominatorRejection) -> String {
        let registration = try ChoominatorRegistration(parsing: datagram.readableBytesView)
        let token: NormalizedToken
        do {
            token = try intake.validateToken(proto: provider, TokenInput(token: .string(registration.device)))
        } catch {
            throw error.code == .invalidToken ? .invalidToken : .refused(error)
        }
        let subscriber: Subscriber
        do {
            // An existing subscriber is refreshed: `updated` = now, failure counter reset (pushd-api.md §4.2).
            subscriber = try await intake.register(proto: provider, token: token, fields: SubscriberFields()).subscriber
        } catch {
            throw .refused(error)
        }
        do {
            // An existing subscription keeps its option: a REST client may have made it silent on purpose.
            let result = try await intake.subscribe(subscriber.id, to: registration.group, ignoreMessage: false, keepingOption: true)
            if result == .unknownSubscriber {
                // Deleted since it was registered (by the REST API or an unregistration): so be it.
                logger.debug("Choominator device deleted while registering", metadata: ["subscriber": "\(subscriber.id)"])
            }
        } catch {
            throw .refused(error)
        }
        return "accepted"
    }
}
