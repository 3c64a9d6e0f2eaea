import HeraldCore
import HeraldIntake
import Logging
import NIOCore

/// The notification port (compat.md §5.3): one durable publish of a prepared APNs payload to the
/// distinct devices of the provider in any of the groups.
struct ChoominatorPublisher: ChoominatorHandler {
    let intake: Intake
    /// The provider the notifications go through; devices of other providers are not notified.
    let provider: String
    let origin: DeliveryOrigin
    let logger: Logger

    var port: String { "notification" }

    func handle(_ datagram: ByteBuffer) async throws(ChoominatorRejection) -> String {
        let notification = try ChoominatorNotification(parsing: datagram.readableBytesView)
        let job: Int64?
        if notification.groups.isEmpty {
            job = nil
        } else {
            do {
                job = try await intake.publish(notification.prepared, toGroups: notification.groups, proto: provider, origin: origin)
            } catch {
                throw .refused(error)
            }
        }
        guard job != nil else {
            logger.info("No notifications generated", metadata: ["groups": "\(notification.requestedGroups.joined(separator: ","))"])
            return "no_recipients"
        }
        return "accepted"
    }
}
