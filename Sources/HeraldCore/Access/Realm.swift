/// An authorization realm: a group of routes that users and ACLs are granted (§2.1).
public enum Realm: String, Sendable, Hashable, CaseIterable, Codable {
    /// Subscriber routes, `GET /event`, `GET /events`, `/status`.
    case register
    /// `POST`/`DELETE /event`, the UDP event port, compat ingestion.
    case publish
    /// Server-Sent Events.
    case listen
    /// Metrics, feedback, dead letters.
    case admin
}
