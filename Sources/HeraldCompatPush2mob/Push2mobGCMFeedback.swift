import HeraldStore

/// One GCM feedback entry as push2mob printed it: `<regid>:<state>:<newregid>` (compat.md §3.4).
struct Push2mobGCMFeedback: Sendable, Equatable {
    /// What became of the registration id.
    enum State: String, Sendable {
        /// The app was uninstalled (FCM `UNREGISTERED`, legacy `NotRegistered`).
        case notregistered
        /// The id is not valid for this sender (`INVALID_ARGUMENT` about the token, `SENDER_ID_MISMATCH`).
        case invalid
        /// Legacy GCM named a newer id (its canonical id).
        case replaced
    }

    /// The feedback log entry's id.
    var entryID: Int64
    /// The registration id.
    var registrationID: String
    /// What became of it.
    var state: State
    /// For ``State/replaced``: the new id.
    var newRegistrationID: String

    /// The entry's reading, or `nil` for a failure that says nothing about the id (it is dropped).
    init?(_ entry: FeedbackEntry) {
        entryID = entry.id
        registrationID = entry.token
        newRegistrationID = ""
        if entry.action == .replaced, let replacement = entry.replacement {
            state = .replaced
            newRegistrationID = replacement
            return
        }
        switch entry.reason {
        case "UNREGISTERED", "NotRegistered":
            state = .notregistered
        case "SENDER_ID_MISMATCH", "MismatchSenderId", "InvalidRegistration", "MissingRegistration":
            state = .invalid
        case let reason where reason.hasPrefix("INVALID_ARGUMENT") && entry.action == .invalid:
            // An INVALID_ARGUMENT the provider blamed on the token is a dead token; one about the
            // message is a failure and no reason to filter the id.
            state = .invalid
        default:
            return nil
        }
    }

    /// `<regid>:<state>:<newregid>`.
    var text: String { "\(registrationID):\(state.rawValue):\(newRegistrationID)" }
}
