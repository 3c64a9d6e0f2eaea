import HeraldCore

/// A Matrix notification as the Huawei Push Kit message Herald sends to one device, without its
/// target (the `hms` provider adds the pushkey as its token).
///
/// Sygnal has no Huawei pushkin (element-hq/sygnal#422 asks for one); **Herald** sends a data
/// message carrying the same fields as the FCM one (``MatrixFCMPayload/data(for:device:)``), as a
/// JSON string in `message.data`, so an app handles both the same way, with `android.urgency`
/// `NORMAL` for `prio: low`, else `HIGH`.
enum MatrixHMSPayload {
    /// The message for `device`, or `nil` when there is nothing to send (as for FCM).
    static func payload(for notification: MatrixNotification, device: MatrixDevice) -> PreparedPayload? {
        guard let data = MatrixFCMPayload.data(for: notification, device: device) else { return nil }
        let message: [(key: String, value: BodyValue)] = [
            ("data", .string(BodyValue.object(data).jsonText)),
            ("android", .object([("urgency", .string(notification.prio == .low ? "NORMAL" : "HIGH"))])),
        ]
        return PreparedPayload(body: BodyValue.object(message).jsonText, label: MatrixFCMPayload.label, reference: notification.eventID)
    }
}
