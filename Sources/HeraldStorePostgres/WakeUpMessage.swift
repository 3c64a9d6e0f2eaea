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
        case .event(let event): Self.eventPayload(json: try Self.eventJSON(event), from: node)
        case .eventReference(let id): "\(node)|eventref|\(id)"
        }
    }

    /// The payload of ``event(_:)`` for an event already written as JSON by ``eventJSON(_:)``, as
    /// the event's stored form is, without writing it again.
    static func eventPayload(json: String, from node: String) -> String {
        "\(node)|event|" + json
    }

    /// The event as JSON text: its stored form (``PostgresCodec/encode(_:)``), so that a publish
    /// writes it once for both.
    static func eventJSON(_ event: PublishedEvent) throws -> String {
        try PostgresCodec.encode(event)
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
