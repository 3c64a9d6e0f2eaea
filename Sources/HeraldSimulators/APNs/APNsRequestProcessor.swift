import Foundation
import NIOCore
import NIOHPACK

/// Judges APNs requests in the order of providers.md §1.9, steps 1–14, and records the outcome; with
/// ``APNsSimulator/Configuration/broadcast`` also the broadcast and channel management APIs (see
/// `APNsRequestProcessor+Broadcast.swift`).
///
/// Runs synchronously on the connection's event loop: the only shared state it touches is behind the store's
/// mutex and the verifier's cache, each taken for a few dictionary operations.
final class APNsRequestProcessor: SimulatorHTTP2RequestProcessor {
    /// Bodies are kept only up to this many bytes: anything longer is too large for every push type anyway.
    static let bodyCap = 8192

    private static let devicePathPrefix = "/3/device/"

    /// The headers of an accepted request that ``Configuration/onAccepted`` hears about: those deciding how the
    /// notification is shown, stored, coalesced and ordered (never `authorization`).
    private static let deliveryHeaders = [
        "apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-collapse-id",
    ]

    let configuration: APNsSimulator.Configuration
    let store: APNsSimulatorStore
    let verifier: APNsProviderTokenVerifier

    init(configuration: APNsSimulator.Configuration, store: APNsSimulatorStore, verifier: APNsProviderTokenVerifier) {
        self.configuration = configuration
        self.store = store
        self.verifier = verifier
    }

    /// Decides what `request` gets on `connection`.
    func process(_ request: SimulatorHTTP2Request, connection: APNsConnectionState)
        -> SimulatorHTTP2Action<APNsResponse>
    {
        let (injection, faultDelay) = self.store.arrive()
        var delay = faultDelay
        let fields = APNsRequestFields(request.headers)
        let route = self.route(of: fields.path)
        switch injection {
        case .error(let status, let reason, let retryAfter) where route != .device:
            self.store.recorder.recordRejection(reason)
            let requestID = fields.requestID.flatMap { Self.isUUID($0) ? $0 : nil } ?? Self.makeUUID()
            return .respond(
                .error(status, reason, requestID: requestID, retryAfter: retryAfter), delayMilliseconds: delay)
        case .error(let status, let reason, let retryAfter):
            let apnsID = fields.apnsID.flatMap { Self.isUUID($0) ? $0 : nil } ?? Self.makeUUID()
            self.store.recorder.recordRejection(reason)
            return .respond(.error(status, reason, apnsID: apnsID, retryAfter: retryAfter), delayMilliseconds: delay)
        case .delay(let milliseconds):
            delay += milliseconds
        case .hang:
            return .hang
        case .goAway(let reason):
            return .goAway(debugText: APNsResponse.json(reason: reason))
        case .resetConnection:
            return .resetConnection
        case nil:
            break
        }
        let response =
            switch route {
            case .device: self.validate(request, fields: fields, connection: connection)
            case .broadcast: self.validateBroadcast(request, fields: fields, connection: connection)
            case .channelManagement: self.manageChannels(request, fields: fields, connection: connection)
            }
        if let reason = response.reason {
            self.store.recorder.recordRejection(reason)
        }
        return .respond(response, delayMilliseconds: delay)
    }

    private func validate(_ request: SimulatorHTTP2Request, fields: APNsRequestFields, connection: APNsConnectionState)
        -> APNsResponse
    {
        // Step 1: a malformed apns-id cannot be echoed, so the error carries a fresh one.
        if let apnsID = fields.apnsID, !Self.isUUID(apnsID) {
            return .error(400, APNsReason.badMessageId, apnsID: Self.makeUUID())
        }
        let apnsID = fields.apnsID ?? Self.makeUUID()

        // Step 2.
        guard fields.method == "POST" else {
            return .error(405, APNsReason.methodNotAllowed, apnsID: apnsID)
        }
        // Step 3.
        if fields.hasDuplicate {
            return .error(400, APNsReason.duplicateHeaders, apnsID: apnsID)
        }
        // Step 4: a single-topic certificate supplies the topic itself (§1.6).
        guard let topic = fields.topic ?? connection.certificateTopic else {
            return .error(400, APNsReason.missingTopic, apnsID: apnsID)
        }
        // Step 5.
        if let collapseID = fields.collapseID, collapseID.utf8.count > 64 {
            return .error(400, APNsReason.badCollapseId, apnsID: apnsID)
        }
        // Step 6: absent means 10 (Apple's documented default).
        let priority: Int
        switch fields.priority {
        case nil, "10": priority = 10
        case "5": priority = 5
        case "1": priority = 1
        default: return .error(400, APNsReason.badPriority, apnsID: apnsID)
        }
        // Step 7: an absent push type is taken as alert, the only type older clients send implicitly.
        guard let pushType = fields.pushType.map({ APNsPushType(rawValue: $0) }) ?? .alert else {
            return .error(400, APNsReason.invalidPushType, apnsID: apnsID)
        }
        if connection.certificateTopic != nil, !pushType.isAllowedWithCertificate {
            return .error(400, APNsReason.invalidPushType, apnsID: apnsID)
        }
        if pushType == .background, priority == 10 {
            return .error(400, self.configuration.backgroundPriority10Reason, apnsID: apnsID)
        }
        // Step 8.
        if let expiration = fields.expiration, !Self.isDecimalInteger(expiration) {
            return .error(400, APNsReason.badExpirationDate, apnsID: apnsID)
        }
        // Step 9.
        guard let path = fields.path, path.hasPrefix(Self.devicePathPrefix) else {
            return .error(404, APNsReason.badPath, apnsID: apnsID)
        }
        let token = path.dropFirst(Self.devicePathPrefix.utf8.count)
        if token.isEmpty {
            return .error(400, APNsReason.missingDeviceToken, apnsID: apnsID)
        }
        guard token.utf8.count % 2 == 0, token.utf8.allSatisfy(\.isHexDigit) else {
            return .error(400, APNsReason.badDeviceToken, apnsID: apnsID)
        }
        // Steps 9 (tokens marked bad), 10 and 11.
        switch self.store.deviceStatus(of: token.lowercased()) {
        case .bad:
            return .error(400, APNsReason.badDeviceToken, apnsID: apnsID)
        case .unregistered(let timestamp):
            return .error(410, APNsReason.unregistered, apnsID: apnsID, timestamp: timestamp)
        case .active(let topics?):
            let bundleID = String(pushType.bundleID(ofTopic: topic))
            if !topics.contains(bundleID), !topics.contains(topic) {
                return .error(400, APNsReason.deviceTokenNotForTopic, apnsID: apnsID)
            }
        case .active(nil):
            break
        }
        // Step 12.
        if let failure = self.authenticate(
            fields, topic: topic, pushType: pushType, connection: connection, apnsID: apnsID)
        {
            return failure
        }
        // Step 13.
        guard request.bodyLength > 0, let body = request.body else {
            return .error(400, APNsReason.payloadEmpty, apnsID: apnsID)
        }
        if request.bodyLength > pushType.maximumPayloadSize {
            return .error(413, APNsReason.payloadTooLarge, apnsID: apnsID)
        }
        var bodyText: String?
        if self.configuration.validatesPayloadJSON || self.configuration.recordPayloads
            || self.configuration.onAccepted != nil
        {
            bodyText = String(validating: body.readableBytesView, as: UTF8.self)
            if self.configuration.validatesPayloadJSON {
                let isObject = bodyText != nil && body.withUnsafeReadableBytes { JSONSyntaxValidator.isObject($0) }
                if !isObject {
                    return .error(400, self.configuration.invalidPayloadReason, apnsID: apnsID)
                }
            }
        }
        // Step 14.
        var record: APNsSimulator.Accepted?
        if self.configuration.recordPayloads {
            record = APNsSimulator.Accepted(
                token: String(token),
                headers: request.headers.map { ($0.name, $0.value) },
                body: bodyText ?? String(buffer: body),
                apnsID: apnsID
            )
        }
        self.store.recorder.recordAccepted(token: String(token), record: record)
        if let onAccepted = self.configuration.onAccepted {
            onAccepted(SimulatorDelivery(
                service: "apns", recipients: [String(token)],
                fields: SimulatorDelivery.fields(Self.deliveryHeaders, request.header),
                payload: bodyText ?? String(buffer: body)))
        }
        return .success(apnsID: apnsID, uniqueID: self.configuration.sandbox ? Self.makeUUID() : nil)
    }

    /// Step 12: the credentials, and whether they cover the topic. `nil` means authenticated.
    private func authenticate(
        _ fields: APNsRequestFields,
        topic: String,
        pushType: APNsPushType,
        connection: APNsConnectionState,
        apnsID: String
    ) -> APNsResponse? {
        if let certificateTopic = connection.certificateTopic {
            // A single-topic certificate covers its topic, and the suffixed topics of its bundle id.
            guard topic == certificateTopic || pushType.bundleID(ofTopic: topic) == certificateTopic else {
                return .error(400, APNsReason.topicDisallowed, apnsID: apnsID)
            }
            if self.topicVerdict(topic, pushType: pushType) == .wrongPushType {
                return .error(400, APNsReason.badTopic, apnsID: apnsID)
            }
            return nil
        }

        if let failure = self.verifyProviderToken(fields.authorization, connection: connection) {
            return .error(failure.status, failure.reason, apnsID: apnsID)
        }
        switch self.topicVerdict(topic, pushType: pushType) {
        case .allowed: return nil
        case .wrongPushType: return .error(400, APNsReason.badTopic, apnsID: apnsID)
        case .notAllowed: return .error(403, APNsReason.invalidProviderToken, apnsID: apnsID)
        }
    }

    /// The provider token check of step 12, shared with the broadcast and channel management APIs: `nil` when
    /// `authorization` carries a valid token of the team (which then binds the connection's key and raises its
    /// stream limit), else the status and reason of the refusal.
    func verifyProviderToken(_ authorization: String?, connection: APNsConnectionState)
        -> (status: Int, reason: String)?
    {
        guard let authorization else {
            return (403, APNsReason.missingProviderToken)
        }
        // Exactly lowercase "bearer" and one space (§1.2).
        guard authorization.hasPrefix("bearer ") else {
            return (403, APNsReason.invalidProviderToken)
        }
        let jwt = String(authorization.dropFirst(7))
        guard let verified = self.verifier.verify(jwt), verified.teamID == self.configuration.teamID else {
            return (403, APNsReason.invalidProviderToken)
        }
        if let boundKeyID = connection.boundKeyID, boundKeyID != verified.keyID {
            return (403, APNsReason.unrelatedKeyIdInToken)
        }
        let now = Date().timeIntervalSince1970
        if Double(verified.issuedAt) > now + Double(self.configuration.providerTokenClockSkew) {
            return (403, APNsReason.invalidProviderToken)
        }
        if now - Double(verified.issuedAt) > Double(self.configuration.providerTokenMaxAge) {
            return (403, APNsReason.expiredProviderToken)
        }
        let admitted = self.store.admitProviderToken(
            jwt,
            now: now,
            limit: self.configuration.maxProviderTokensPerWindow,
            window: Double(self.configuration.providerTokenUpdateWindow)
        )
        guard admitted else {
            return (429, APNsReason.tooManyProviderTokenUpdates)
        }
        if connection.boundKeyID == nil {
            connection.boundKeyID = verified.keyID
        }
        connection.providerTokenAccepted()
        return nil
    }

    private func topicVerdict(_ topic: String, pushType: APNsPushType) -> APNsTopicVerdict {
        let bundles = self.configuration.topics
        if bundles.isEmpty {
            return .allowed
        }
        guard let suffix = pushType.topicSuffix else {
            return bundles.contains(topic) ? .allowed : .notAllowed
        }
        if topic.hasSuffix(suffix), bundles.contains(String(topic.dropLast(suffix.count))) {
            return .allowed
        }
        for other in APNsPushType.allCases {
            guard let otherSuffix = other.topicSuffix, topic.hasSuffix(otherSuffix) else { continue }
            if bundles.contains(String(topic.dropLast(otherSuffix.count))) {
                return .wrongPushType
            }
        }
        return .notAllowed
    }

    /// Whether `text` is a UUID in the 8-4-4-4-12 form (either case of hex digits).
    static func isUUID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !byte.isHexDigit {
                return false
            }
        }
        return true
    }

    /// Whether `text` is a decimal integer that fits in 64 bits.
    static func isDecimalInteger(_ text: String) -> Bool {
        Int64(text) != nil && !text.hasPrefix("+")
    }

    /// A new lowercase canonical UUID, as APNs generates.
    static func makeUUID() -> String {
        UUID().uuidString.lowercased()
    }
}
