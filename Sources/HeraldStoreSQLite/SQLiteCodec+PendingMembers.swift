import Foundation
import HeraldCore
import HeraldStore

extension SQLiteCodec {
    /// `publish_jobs.pending`: `NULL` for none, a JSON array for ``PendingMembers/listed(_:)``,
    /// `{"after": id or null, "except": [ids]}` for ``PendingMembers/range(after:except:)``.
    static func pendingText(_ pending: PendingMembers) throws -> String? {
        switch pending {
        case .listed(let ids):
            return ids.isEmpty ? nil : try jsonArray(ids.lazy.map(\.rawValue))
        case .range(let after, let except):
            var writer = JSONWriter(capacity: 64 + except.count * 16)
            writer.beginObject()
            writer.key("after")
            if let after { writer.string(after.rawValue) } else { writer.null() }
            writer.key("except")
            writer.beginArray()
            for id in except { writer.string(id.rawValue) }
            writer.endArray()
            writer.endObject()
            return writer.text
        }
    }

    /// Reads `publish_jobs.pending` as ``pendingText(_:)`` writes it.
    static func pendingMembers(_ text: String?, jobID: Int64) throws -> PendingMembers {
        guard let text else { return .none }
        let value = try? JSONSerialization.jsonObject(with: Data(text.utf8))
        if let ids = value as? [String] {
            return .listed(ids.map(SubscriberID.init(rawValue:)))
        }
        if let object = value as? [String: Any], let except = object["except"] as? [String] {
            let after = object["after"] as? String
            return .range(after: after.map(SubscriberID.init(rawValue:)), except: except.map(SubscriberID.init(rawValue:)))
        }
        throw StoreError.corruptRow("publish_jobs \(jobID): pending is neither a list of ids nor a range")
    }
}
