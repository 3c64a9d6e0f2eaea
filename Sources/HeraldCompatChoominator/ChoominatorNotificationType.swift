/// A notification's `type` and the APNs headers it stands for (compat.md §5.3).
enum ChoominatorNotificationType: String, Sendable, Equatable {
    /// `apns-push-type: background`, `apns-priority: 5` (the default).
    case background
    /// `apns-push-type: alert`, `apns-priority: 5`.
    case normal
    /// `apns-push-type: alert`, `apns-priority: 10`.
    case urgent

    /// `apns-push-type`.
    var pushType: String { self == .background ? "background" : "alert" }

    /// `apns-priority`.
    var priority: String { self == .urgent ? "10" : "5" }
}
