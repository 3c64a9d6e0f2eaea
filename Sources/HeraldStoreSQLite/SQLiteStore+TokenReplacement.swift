import GRDB
import HeraldCore
import HeraldStore

extension SQLiteStore {
    /// Updates each subscriber's token unless another subscriber of the provider holds it already, in which
    /// case the outdated duplicate is deleted; every change gets its feedback entry, all in one transaction.
    public func replaceTokens(_ replacements: [TokenReplacement], now: Int64) async throws -> [SubscriberID] {
        guard !replacements.isEmpty else { return [] }
        return try await pool.write { db in
            try Self.applyReplacements(replacements, now: now, in: db)
        }
    }

    /// The body of ``replaceTokens(_:now:)`` inside a caller's transaction.
    static func applyReplacements(_ replacements: [TokenReplacement], now: Int64, in db: Database) throws -> [SubscriberID] {
        guard !replacements.isEmpty else { return [] }
        var feedback: [FeedbackEntry] = []
        var duplicates: [String] = []
        let holder = try db.cachedStatement(sql: "SELECT id FROM subscribers WHERE proto = ? AND identity = ?")
        let update = try db.cachedStatement(sql: "UPDATE subscribers SET token = ?, identity = ?, updated = ? WHERE id = ?")
        for replacement in replacements {
            let id = replacement.subscriberID.rawValue
            let current = try String.fetchOne(holder, arguments: [replacement.proto, replacement.identity])
            if let current, current != id {
                duplicates.append(id)
                feedback.append(FeedbackEntry(
                    time: now, subscriberID: replacement.subscriberID, origin: replacement.origin, proto: replacement.proto, token: replacement.oldToken,
                    status: nil, reason: "CanonicalRegistrationID", action: .unregistered, replacement: replacement.newToken))
                continue
            }
            try update.execute(arguments: [replacement.newToken, replacement.identity, now, id])
            guard db.changesCount > 0 else { continue }  // deleted meanwhile
            feedback.append(FeedbackEntry(
                time: now, subscriberID: replacement.subscriberID, origin: replacement.origin, proto: replacement.proto, token: replacement.oldToken,
                status: nil, reason: "CanonicalRegistrationID", action: .replaced, replacement: replacement.newToken))
        }
        try Self.insertFeedback(feedback, in: db)
        let deleted = try Self.deleteSubscribers(duplicates, in: db)
        return duplicates.filter(deleted.contains).map(SubscriberID.init(rawValue:))
    }
}
