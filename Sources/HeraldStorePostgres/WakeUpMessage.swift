import Foundation
import HeraldCore
import HeraldStore

/// What one node tells the others on the notification channel, and its text form:
/// `<node>|jobs`, `<node>|deliveries`, `<node>|event|<json>` or `<node>|eventref|<id>`.
enum WakeUpMessage: Sendable {
    /// Publish jobs were committed.
    case jobs
    /// Deliveries were queued.
    case deliveries
    /// An event for Server-Sent Events listeners, carried whole.
    case event(PublishedEvent)
    /// An event too large for a payload, stored in `announcements` under this id.
    case eventReference(Int64)

    /// PostgreSQL refuses payloads of 8000 bytes or more.
    static let payloadLimit = 7999

    /// The payload, prefixed with the sending node's id.
    func payload(from node: String) throws -> String {
        switch self {
        case .jobs: "\(node)|jobs"
        case .deliveries: "\(node)|deliveries"
        case .event(let event): "\(node)|event|" + (try Self.eventJSON(event))
        case .eventReference(let id): "\(node)|eventref|\(id)"
        }
    }

    /// The event as JSON text.
    static func eventJSON(_ event: PublishedEvent) throws -> String {
        String(decoding: try JSONEncoder().encode(event), as: UTF8.self)
    }

    /// Reads an event written by ``eventJSON(_:)``.
    static func event(fromJSON json: String) throws -> PublishedEvent {
        try JSONDecoder().decode(PublishedEvent.self, from: Data(json.utf8))
    }

    /// Parses a payload: the sending node and the message, or `nil` for text this store did not write.
    static func parse(_ payload: String) -> (node: Substring, message: WakeUpMessage)? {
        let parts = payload.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        switch parts[1] {
        case "jobs": return (parts[0], .jobs)
        case "deliveries": return (parts[0], .deliveries)
        case "event" where parts.count == 3:
            guard let event = try? event(fromJSON: String(parts[2])) else { return nil }
            return (parts[0], .event(event))
        case "eventref" where parts.count == 3:
            guard let id = Int64(parts[2]) else { return nil }
            return (parts[0], .eventReference(id))
        default: return nil
        }
    }
}
