import HeraldCore

/// One entry of `compat.matrix.apps`: the provider its pushkeys go through, and how (Sygnal's
/// per-app options, compat.md §8.1).
struct MatrixApp: Sendable {
    /// What is sent for the app, by its provider's kind.
    enum Delivery: Sendable {
        /// APNs: the pushkey is base64 of the token (sent as lower-case hex unless
        /// `convertDeviceTokenToHex` is off), the badge is the counts' sum unless
        /// `sendBadgeCounts` is off, and `pushType` overrides `apns-push-type`.
        case apns(convertDeviceTokenToHex: Bool, sendBadgeCounts: Bool, pushType: String?)
        /// FCM v1: the pushkey is the registration token; `options` are merged under `message`.
        case fcm(options: [(key: String, value: BodyValue)])
        /// Web Push: the pushkey is the subscription's `p256dh` key (the pusher's `data` has its
        /// `endpoint` and `auth`); `ttl` is the message's `TTL`, `eventsOnly` drops badge updates,
        /// `onlyLastPerRoom` gives a room's messages one `Topic`.
        case webPush(ttl: Int, eventsOnly: Bool, onlyLastPerRoom: Bool)
        /// Huawei Push Kit: the pushkey is the push token; a data message with FCM's fields.
        case hms
    }

    /// The `app_id` or the glob it was configured under.
    var pattern: String
    /// The Herald provider its pushkeys go through.
    var provider: String
    /// What is sent for it.
    var delivery: Delivery
}
