import Crypto
import HeraldCore
import HeraldIntake
import Logging

/// Turns one suj-pusher message into raw sends, one for every service whose ids and credentials
/// it carries (compat.md §2.3–2.7).
///
/// What cannot be sent is logged (and the rest still sent): a part whose `data` has the wrong
/// type, an unusable certificate, an unknown `wnstype`, an `api_key` no provider answers for.
/// Invalid ids are not weeded out here: each underlying provider checks its tokens when it sends,
/// so that every invalid one is recorded in the feedback log.
struct SujPusherRouter: Sendable {
    /// The origin of what suj-pusher sends, in feedback, dead letters and metrics.
    static let origin = DeliveryOrigin("suj-pusher")
    /// The front-end's own providers (CredentialedProvider), named so that no configuration can use them.
    static let apnsProvider = "suj-pusher-apns"
    static let gcmProvider = "suj-pusher-gcm"
    static let wnsProvider = "suj-pusher-wns"
    static let wpnsProvider = "suj-pusher-wpns"
    /// The prepared payload's credential headers (never sent, logged or shown).
    static let certificateHeader = PreparedPayload.credentialHeaderPrefix + "apns-certificate"
    static let apiKeyHeader = PreparedPayload.credentialHeaderPrefix + "gcm-api-key"
    static let sidHeader = PreparedPayload.credentialHeaderPrefix + "wns-sid"
    static let secretHeader = PreparedPayload.credentialHeaderPrefix + "wns-secret"
    /// The `wnstype` values WNS knows.
    static let wnsTypes: Set<String> = ["wns/toast", "wns/tile", "wns/badge", "wns/raw"]
    /// The largest `android.ttl` FCM takes: four weeks.
    static let maximumFCMTTL: Int64 = 2_419_200

    let settings: SujPusherSettings
    /// The kind of a configured provider (`fcm`, `gcm-legacy`), by name.
    let providerKind: @Sendable (String) -> String?
    let logger: Logger

    /// The sends for `message` (a JSON object's members); empty when it addresses no service.
    func route(_ message: [(key: String, value: BodyValue)], now: Int64) -> [RawSend] {
        let fields = Fields(message)
        // Each part is nil when the message does not address its service, empty when it does but
        // the part cannot be sent (logged).
        let parts = [apns(fields, now: now), gcm(fields), wns(fields), wpns(fields)]
        guard parts.contains(where: { $0 != nil }) else {
            logger.warning("Could not find connection")
            return []
        }
        return parts.compactMap { $0 }.joined().flatMap(Self.chunked)
    }

    // MARK: - Services

    private func apns(_ fields: Fields, now: Int64) -> [RawSend]? {
        guard let pem = fields.nonEmptyString("cert"), let ids = fields.ids("apn_ids") else { return nil }
        guard case .object(let data)? = fields["data"] else {
            logger.warning("APNs part skipped: data is not an object")
            return []
        }
        guard let certificate = SujPusherCertificate(pem: pem) else {
            logger.warning("invalid certificate: the APNs part is dropped")
            return []
        }
        // Only `false` selects production, as suj-pusher's README says (its code defaulted to production).
        let production = if case .bool(false)? = fields["development"] { true } else { false }
        let ttl = fields.timeToLive
        var headers = [
            PreparedPayload.apnsEnvironmentHeader: production ? "production" : "sandbox",
            Self.certificateHeader: certificate.pem,
            // 0: APNs tries once and does not store, as the binary protocol's expiry 0.
            "apns-expiration": ttl > 0 ? String(now + ttl) : "0",
        ]
        if let topic = certificate.topic { headers["apns-topic"] = topic }
        let payload = PreparedPayload(
            body: BodyValue.object(data).jsonText, headers: headers, expiration: ttl > 0 ? now + ttl : nil, label: Self.origin.rawValue)
        return [RawSend(proto: Self.apnsProvider, tokens: ids, payload: payload, origin: Self.origin)]
    }

    private func gcm(_ fields: Fields) -> [RawSend]? {
        guard let apiKey = fields.nonEmptyString("api_key"), let ids = fields.ids("gcm_ids") else { return nil }
        let data: [(key: String, value: BodyValue)]
        switch fields["data"] {
        case .object(let members)?: data = members
        case nil, .null?: data = []
        default:
            logger.warning("GCM part skipped: data is not an object")
            return []
        }
        let ttl = fields.timeToLive
        let legacyBody = BodyValue.object([("time_to_live", .number(String(ttl))), ("data", .object(data))]).jsonText
        if let provider = settings.apiKeys[apiKey] {
            let body: String
            if providerKind(provider) == "gcm-legacy" {
                body = legacyBody
            } else {
                // suj-pusher always sent time_to_live 0: "now or never".
                let android: BodyValue = .object([("ttl", .string("\(min(ttl, Self.maximumFCMTTL))s"))])
                body = BodyValue.object([("data", .object(FCMData.strings(data))), ("android", android)]).jsonText
            }
            let payload = PreparedPayload(body: body, label: Self.origin.rawValue)
            return [RawSend(proto: provider, tokens: ids, payload: payload, origin: Self.origin)]
        }
        guard settings.legacyGCMEndpoint != nil else {
            logger.warning("no FCM provider for this api_key: the GCM part is dropped", metadata: ["api_key_sha256": "\(Self.keyHint(apiKey))"])
            return []
        }
        let payload = PreparedPayload(body: legacyBody, headers: [Self.apiKeyHeader: apiKey], label: Self.origin.rawValue)
        return [RawSend(proto: Self.gcmProvider, tokens: ids, payload: payload, origin: Self.origin)]
    }

    private func wns(_ fields: Fields) -> [RawSend]? {
        guard let sid = fields.nonEmptyString("sid"), let secret = fields.nonEmptyString("secret"), let ids = fields.ids("wnsids") else { return nil }
        guard let type = fields.nonEmptyString("wnstype"), Self.wnsTypes.contains(type) else {
            logger.warning("WNS part skipped: wnstype is not one of wns/toast, wns/tile, wns/badge, wns/raw")
            return []
        }
        var headers = [
            "x-wns-type": type, Self.sidHeader: sid, Self.secretHeader: secret,
            "x-wns-cache-policy": fields.text("wnscache") ?? "no-cache",
            "x-wns-requestforstatus": fields.text("wnsrequeststatus") ?? "true",
        ]
        if let tag = fields.text("wnstag") { headers["x-wns-tag"] = tag }
        let ttl = fields.timeToLive
        if ttl > 0 { headers["x-wns-ttl"] = String(ttl) }
        let payload = PreparedPayload(body: fields.bodyText, headers: headers, label: Self.origin.rawValue)
        return [RawSend(proto: Self.wnsProvider, tokens: ids, payload: payload, origin: Self.origin)]
    }

    private func wpns(_ fields: Fields) -> [RawSend]? {
        guard let notificationClass = fields.text("wpnotificationclass"), let ids = fields.ids("wpids") else { return nil }
        var headers = ["x-notificationclass": notificationClass]
        switch fields.text("wptype") {
        case "toast": headers["x-windowsphone-target"] = "toast"
        case "badge", "tile", "token": headers["x-windowsphone-target"] = "token"
        default: break  // raw
        }
        if let messageID = fields.text("wpmid") { headers["x-messageid"] = messageID }
        let payload = PreparedPayload(body: fields.bodyText, headers: headers, label: Self.origin.rawValue)
        return [RawSend(proto: Self.wpnsProvider, tokens: ids, payload: payload, origin: Self.origin)]
    }

    // MARK: - Helpers

    /// A send cut to the intake's limit of tokens per send.
    private static func chunked(_ send: RawSend) -> [RawSend] {
        guard send.tokens.count > Intake.maxTokensPerSend else { return [send] }
        return stride(from: 0, to: send.tokens.count, by: Intake.maxTokensPerSend).map { start in
            var part = send
            part.tokens = Array(send.tokens[start..<min(start + Intake.maxTokensPerSend, send.tokens.count)])
            return part
        }
    }

    /// The first 8 hex digits of the SHA-256 of an API key: enough to tell keys apart in a log, never the key.
    static func keyHint(_ key: String) -> String {
        SHA256.hash(data: Array(key.utf8)).prefix(4).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}

/// A message's fields, read as suj-pusher read them.
private struct Fields {
    let members: [(key: String, value: BodyValue)]

    init(_ members: [(key: String, value: BodyValue)]) { self.members = members }

    subscript(key: String) -> BodyValue? { members.last { $0.key == key }?.value }

    func nonEmptyString(_ key: String) -> String? {
        if case .string(let text)? = self[key], !text.isEmpty { text } else { nil }
    }

    /// A scalar's text (`true`, `5`, `"cache"`); `nil` when absent, null or a container.
    func text(_ key: String) -> String? { self[key]?.scalarText }

    /// A non-empty array's scalar entries.
    func ids(_ key: String) -> [String]? {
        guard case .array(let values)? = self[key] else { return nil }
        let ids = values.compactMap(\.scalarText).filter { !$0.isEmpty }
        return ids.isEmpty ? nil : ids
    }

    /// `time_to_live` in whole seconds, at least 0; default 0.
    var timeToLive: Int64 {
        guard let text = text("time_to_live"), let seconds = Double(text), seconds.isFinite, seconds > 0 else { return 0 }
        return Int64(min(seconds, Double(Int32.max)))
    }

    /// WNS and WPNS bodies: `data` as it is when it is a string, else its compact JSON text.
    var bodyText: String {
        switch self["data"] {
        case .string(let text)?: text
        case let value?: value.jsonText
        case nil: ""
        }
    }

}
