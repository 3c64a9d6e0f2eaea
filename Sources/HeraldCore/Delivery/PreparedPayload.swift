/// A provider payload made ready by the sender, sent as it is: what the other gateways'
/// clients send (an APNs JSON body with its headers, an FCM message, a WNS XML body).
///
/// Herald does not template, localize or count badges for it; the provider only checks that
/// it can carry it (size, required headers) and sends it to a raw token.
public struct PreparedPayload: Sendable, Hashable, Codable {
    /// The request body as the provider sends it (JSON for APNs, FCM and webhooks; XML for WNS and MPNS).
    public var body: String
    /// Provider headers, lower-cased names (`apns-topic`, `apns-push-type`, `x-wns-type`, ...).
    ///
    /// Names beginning with `herald-` direct Herald's provider (``apnsEnvironmentHeader``) and are never sent.
    public var headers: [String: String]

    /// Sends an APNs notification to the environment its value names (`production` or `sandbox`) instead of
    /// the provider's, as gorush's `production`/`development` and suj-pusher's `development` ask.
    public static let apnsEnvironmentHeader = "herald-apns-environment"
    /// Names beginning with this carry a credential that came with the payload (suj-pusher's
    /// certificate, WNS secret, GCM API key): the provider connects with it, and it is never sent,
    /// logged or shown (`GET /dead-letters` shows `***`).
    public static let credentialHeaderPrefix = "herald-credential-"
    /// Unix seconds after which it must not be delivered (`nil`: no limit).
    public var expiration: Int64?
    /// The event name it counts under in dead-letter filters and logs (the front-end's own label).
    public var label: String
    /// The sender's own id for it (gorush's `notif_id`, apns-ms's `identifier`), written with its
    /// feedback so the sender can match what failed.
    public var reference: String?
    /// Set when a front-end waits for the first attempt's answers (apns-ms): the key they are
    /// handed over under in this process.
    public var receipt: String?
    /// The send (or publish) it belongs to, random and unique, set once when it is accepted: with the recipient it names one
    /// delivery, the same on every attempt (a webhook's `webhook-id`). `nil` in what was stored before it existed.
    public var publishID: String?
    /// When the intake accepted it (Unix seconds): a Live Activity update without `aps.timestamp`
    /// is stamped with it, the same on every attempt. `nil` in what was stored before it existed.
    public var acceptedAt: Int64?

    /// Creates a prepared payload; header names are lower-cased.
    public init(body: String, headers: [String: String] = [:], expiration: Int64? = nil, label: String = "raw", reference: String? = nil) {
        self.body = body
        self.reference = reference
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.expiration = expiration
        self.label = label
    }
}
