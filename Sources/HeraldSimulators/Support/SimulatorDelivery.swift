/// What a simulator accepted, reduced to what would have reached the device: whom it was for, the request
/// headers that shape the delivery, and the payload. Never a credential: no `authorization` header, no VAPID
/// signature, no API key.
///
/// Every simulator hands one to its configuration's `onAccepted` for each request it accepts; `herald simulate
/// --verbose` logs them, so one hook serves every kind.
public struct SimulatorDelivery: Sendable {
    /// The simulated service: `apns`, `fcm`, `webpush`, `wns`, `mpns` or `gcm-legacy`.
    public let service: String
    /// Whom it was addressed to, in full: device or registration tokens, a channel id or a subscription id.
    /// Several for a legacy GCM multicast (every id of the request; ``fields`` says how many got a `message_id`);
    /// none for an FCM topic or condition (the target is then among ``fields``). Loggers should shorten these,
    /// also where the payload repeats them (FCM and legacy GCM bodies do).
    public let recipients: [String]
    /// The request's fields that decide how the delivery behaves (`apns-push-type`, `X-WNS-Type`, `TTL`, ...), in a
    /// fixed order; only those present.
    public let fields: [(name: String, value: String)]
    /// The payload as text: the request body as received (for FCM and legacy GCM, the whole message with its
    /// options), or for Web Push the decrypted message the browser gets.
    public let payload: String

    /// Creates the record of one accepted request.
    public init(service: String, recipients: [String], fields: [(name: String, value: String)], payload: String) {
        self.service = service
        self.recipients = recipients
        self.fields = fields
        self.payload = payload
    }

    /// The fields called `names` that `header` finds (it looks a header up by name), in the order of `names`.
    static func fields(_ names: [String], _ header: (String) -> String?) -> [(name: String, value: String)] {
        names.compactMap { name in header(name).map { (name, $0) } }
    }
}

/// Receives every request a simulator accepted. Called on the simulator's request path, outside its locks, so it
/// should be quick (logging is).
public typealias SimulatorDeliveryHandler = @Sendable (SimulatorDelivery) -> Void
