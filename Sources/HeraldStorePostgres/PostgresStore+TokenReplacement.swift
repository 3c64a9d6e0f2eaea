import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Updates each subscriber's token unless another subscriber of the provider holds it already,
    /// in which case the outdated duplicate is deleted; every change gets its feedback entry, all
    /// in one transaction.
    public func replaceTokens(_ replacements: [TokenReplacement], now: Int64) async throws -> [SubscriberID] {
        guard !replacements.isEmpty else { return [] }
        let logger = self.logger
        return try await withTransaction { connection in
            try await Self.applyReplacements(replacements, now: now, on: connection, logger: logger)
        }
    }

    /// The body of ``replaceTokens(_:now:)`` inside a caller's transaction. A statement per
    /// replacement: replacements are rare (legacy GCM's canonical ids), and each depends on the
    /// ones before it (two may name the same new token).
    static func applyReplacements(
        _ replacements: [TokenReplacement], now: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> [SubscriberID] {
        guard !replacements.isEmpty else { return [] }
        var feedback: [FeedbackEntry] = []
        var duplicates: [String] = []
        for replacement in replacements {
            let id = replacement.subscriberID.rawValue
            let holder = try await connection.query("""
                SELECT id FROM subscribers WHERE proto = \(replacement.proto) AND identity = \(replacement.identity)
                """, logger: logger).map { try $0.decode(String.self) }.first
            if let holder, holder != id {
                duplicates.append(id)
                feedback.append(FeedbackEntry(
                    time: now, subscriberID: replacement.subscriberID, origin: replacement.origin, proto: replacement.proto,
                    token: replacement.oldToken, status: nil, reason: "CanonicalRegistrationID", action: .unregistered,
                    replacement: replacement.newToken))
                continue
            }
            let updated = try await connection.query("""
                UPDATE subscribers SET token = \(replacement.newToken), identity = \(replacement.identity), updated = \(now)
                WHERE id = \(id) RETURNING 1
                """, logger: logger).collect()
            guard !updated.isEmpty else { continue }  // deleted meanwhile
            feedback.append(FeedbackEntry(
                time: now, subscriberID: replacement.subscriberID, origin: replacement.origin, proto: replacement.proto,
                token: replacement.oldToken, status: nil, reason: "CanonicalRegistrationID", action: .replaced,
                replacement: replacement.newToken))
        }
        try await insertFeedback(feedback, on: connection, logger: logger)
        let deleted = try await deleteSubscribers(duplicates, on: connection, logger: logger)
        return duplicates.filter(deleted.contains).map(SubscriberID.init(rawValue:))
    }
}
