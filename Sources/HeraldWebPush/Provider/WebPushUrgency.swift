/// The RFC 8030 §5.3 `Urgency` of a push message: how hard the user agent's device may work to receive it.
public enum WebPushUrgency: String, Sendable, Hashable, CaseIterable {
    /// On power and Wi-Fi only (advertisements).
    case veryLow = "very-low"
    /// On power or Wi-Fi (topic updates).
    case low
    /// The default (chat, calendar).
    case normal
    /// Also on low battery (calls, time-critical alerts).
    case high
}
