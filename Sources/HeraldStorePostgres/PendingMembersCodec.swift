import Foundation
import HeraldCore
import HeraldStore

/// `publish_jobs.pending`, as SQLite stores it: `NULL` for none, a JSON array for
/// ``PendingMembers/listed(_:)``, `{"after": id or null, "except": [ids]}` for
/// ``PendingMembers/range(after:except:)``.
enum PendingMembersCodec {
    private struct Range: Codable {
        var after: String?
        var except: [String]
    }

    /// The stored text of `pending`.
    static func text(_ pending: PendingMembers) throws -> String? {
        switch pending {
        case .listed(let ids):
            return ids.isEmpty ? nil : String(decoding: try JSONEncoder().encode(ids.map(\.rawValue)), as: UTF8.self)
        case .range(let after, let except):
            return String(decoding: try JSONEncoder().encode(Range(after: after?.rawValue, except: except.map(\.rawValue))), as: UTF8.self)
        }
    }

    /// Reads what ``text(_:)`` wrote.
    static func members(_ text: String?, jobID: Int64) throws -> PendingMembers {
        guard let text else { return .none }
        let data = Data(text.utf8)
        if let ids = try? JSONDecoder().decode([String].self, from: data) {
            return .listed(ids.map(SubscriberID.init(rawValue:)))
        }
        if let range = try? JSONDecoder().decode(Range.self, from: data) {
            return .range(after: range.after.map(SubscriberID.init(rawValue:)), except: range.except.map(SubscriberID.init(rawValue:)))
        }
        throw StoreError.corruptRow("publish_jobs \(jobID): pending is neither a list of ids nor a range")
    }
}
