import HeraldCore

/// A gorush `POST /api/push` body (compat.md §6.1): up to 100 notifications.
struct GorushRequest: Sendable {
    /// Most notifications one request may carry (gorush's default `max_notification`).
    static let maxNotifications = 100

    /// The notifications, in order.
    let notifications: [GorushNotification]

    /// Parses and checks a body; throws gorush's 400 answers.
    init(body: some Collection<UInt8>) throws(GorushRequestError) {
        guard case .object(let members)? = try? JSONBodyParser.parse(body) else { throw .missingNotifications }
        guard let list = members.last(where: { $0.key == "notifications" })?.value, case .array(let elements) = list else {
            throw .missingNotifications
        }
        guard !elements.isEmpty else { throw .emptyNotifications }
        var notifications: [GorushNotification] = []
        for element in elements { notifications.append(try GorushNotification(element)) }
        guard notifications.count <= Self.maxNotifications else { throw .overLimit(notifications.count) }
        self.notifications = notifications
    }
}
