import Foundation
import NIOCore

/// The broadcast push API of iOS 18, served when ``APNsSimulator/Configuration/broadcast`` is on: channel
/// management (`/1/apps/<bundle id>/channels` and `/all-channels`; Apple's "Sending channel management requests to
/// APNs") and broadcast sends (`POST /4/broadcasts/apps/<bundle id>`; "Sending broadcast push notification requests
/// to APNs"), with the reasons of "Handling error responses from Apple Push Notification service".
///
/// Apple serves channel management on its own hosts (`api-manage-broadcast[.sandbox].push.apple.com`, ports 2196 and
/// 2195); the simulator serves it on its one listener, told apart by path, so a test points both of Herald's APNs
/// endpoints at the same simulator.
///
/// Apple documents what it checks but not in which order, except that authentication comes before the channel. The
/// simulator checks: request ids, method and path (broadcasts: method first; channel management: path first, as the
/// path decides the methods), credentials, bundle id, then (broadcasts) push type, priority, expiration, channel,
/// expiration against the channel's policy, body; (channel management) the operation's own header or body. These
/// answers carry `apns-request-id` (the client's, or a fresh lowercase UUID), never `apns-id`.
extension APNsRequestProcessor {
    /// Which API a request addresses, by its `:path`.
    enum Route {
        /// `/3/device/…` and every path the other two do not claim: providers.md §1.9.
        case device
        /// `/4/…`: broadcast sends.
        case broadcast
        /// `/1/…`: channel management.
        case channelManagement
    }

    static let broadcastPathPrefix = "/4/broadcasts/apps/"
    static let channelManagementPathPrefix = "/1/apps/"
    /// The largest broadcast body APNs accepts: 5 KB.
    static let broadcastPayloadLimit = 5120
    /// Channel ids longer than this are `BadChannelId` ("greater than the allowed length"); Apple gives no number,
    /// and its ids are about 24 characters, so this is an assumption.
    static let maximumChannelIDLength = 256

    /// The API `path` addresses; always ``Route/device`` unless the broadcast API is served.
    func route(of path: String?) -> Route {
        guard self.configuration.broadcast, let path else { return .device }
        if path.hasPrefix("/4/") { return .broadcast }
        if path.hasPrefix("/1/") { return .channelManagement }
        return .device
    }

    // MARK: Broadcast sends

    /// Judges `POST /4/broadcasts/apps/<bundle id>` and records it when accepted: `200` with `apns-request-id` and
    /// `apns-unique-id`.
    func validateBroadcast(_ request: SimulatorHTTP2Request, fields: APNsRequestFields, connection: APNsConnectionState)
        -> APNsResponse
    {
        let (requestID, rejection) = self.requestID(of: fields)
        if let rejection {
            return rejection
        }
        guard fields.method == "POST" else {
            return .error(405, APNsReason.methodNotAllowed, requestID: requestID)
        }
        guard let path = fields.path, path.hasPrefix(Self.broadcastPathPrefix) else {
            return .error(404, APNsReason.badPath, requestID: requestID)
        }
        let bundleID = String(path.dropFirst(Self.broadcastPathPrefix.utf8.count))
        guard !bundleID.isEmpty, !bundleID.contains("/") else {
            return .error(404, APNsReason.badPath, requestID: requestID)
        }
        if let failure = self.authorize(fields, bundleID: bundleID, connection: connection) {
            return .error(failure.status, failure.reason, requestID: requestID)
        }
        // Apple's pages spell the one push type `Liveactivity`, `liveactivity` and `LiveActivity`.
        guard let pushType = fields.pushType else {
            return .error(400, APNsReason.missingPushType, requestID: requestID)
        }
        guard pushType.lowercased() == APNsPushType.liveactivity.rawValue else {
            return .error(400, APNsReason.invalidPushType, requestID: requestID)
        }
        // Required, with no reason of its own for its absence.
        switch fields.priority {
        case "10", "5", "1": break
        default: return .error(400, APNsReason.badPriority, requestID: requestID)
        }
        // Documented as required, but Apple's own curl example omits it: absent counts as 0.
        var expiration: Int64 = 0
        if let text = fields.expiration {
            guard Self.isDecimalInteger(text), let value = Int64(text) else {
                return .error(400, APNsReason.badExpirationDate, requestID: requestID)
            }
            expiration = value
        }
        let channel: APNsSimulator.Channel
        switch self.channel(named: fields.channelID, of: bundleID) {
        case .found(let found): channel = found
        case .refused(let reason): return .error(400, reason, requestID: requestID)
        }
        // "Providing a nonzero expiration for a channel created with the No Message Stored storage policy results in
        // message rejection."
        if channel.messageStoragePolicy == .noMessageStored, expiration != 0 {
            return .error(400, APNsReason.badExpirationDate, requestID: requestID)
        }
        if request.bodyLength == 0 {
            return .error(400, APNsReason.payloadEmpty, requestID: requestID)
        }
        if request.bodyLength > Self.broadcastPayloadLimit {
            return .error(413, APNsReason.payloadTooLarge, requestID: requestID)
        }
        guard let body = request.body else {
            return .error(400, APNsReason.payloadEmpty, requestID: requestID)
        }
        let bodyText = String(validating: body.readableBytesView, as: UTF8.self)
        if self.configuration.validatesPayloadJSON {
            let isObject = bodyText != nil && body.withUnsafeReadableBytes { JSONSyntaxValidator.isObject($0) }
            if !isObject {
                return .error(400, APNsReason.badRequestPayload, requestID: requestID)
            }
        }
        let text = bodyText ?? String(buffer: body)
        let uniqueID = Self.makeUUID()
        if self.configuration.recordPayloads {
            self.store.recordBroadcast(
                APNsSimulator.AcceptedBroadcast(
                    bundleID: bundleID,
                    channelID: channel.id,
                    headers: request.headers.map { ($0.name, $0.value) },
                    body: text,
                    requestID: requestID,
                    uniqueID: uniqueID
                )
            )
        }
        self.store.recorder.recordAccepted(token: nil, record: nil)
        self.store.recorder.withStatistics { $0.broadcasts += 1 }
        if let onAccepted = self.configuration.onAccepted {
            onAccepted(
                SimulatorDelivery(
                    service: "apns", recipients: [channel.id],
                    fields: SimulatorDelivery.fields(
                        ["apns-push-type", "apns-priority", "apns-expiration"], request.header),
                    payload: text))
        }
        return .success(200, requestID: requestID, uniqueID: uniqueID)
    }

    // MARK: Channel management

    /// Judges `/1/apps/<bundle id>/channels` (`POST` creates, `GET` reads, `DELETE` deletes) and
    /// `/1/apps/<bundle id>/all-channels` (`GET` lists).
    func manageChannels(_ request: SimulatorHTTP2Request, fields: APNsRequestFields, connection: APNsConnectionState)
        -> APNsResponse
    {
        let (requestID, rejection) = self.requestID(of: fields)
        if let rejection {
            return rejection
        }
        guard let path = fields.path, path.hasPrefix(Self.channelManagementPathPrefix) else {
            return .error(404, APNsReason.badPath, requestID: requestID)
        }
        let parts = path.dropFirst(Self.channelManagementPathPrefix.utf8.count)
            .split(separator: "/" as Character, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1] == "channels" || parts[1] == "all-channels" else {
            return .error(404, APNsReason.badPath, requestID: requestID)
        }
        let bundleID = String(parts[0])
        let listing = parts[1] == "all-channels"
        let methods = listing ? ["GET"] : ["POST", "GET", "DELETE"]
        guard let method = fields.method, methods.contains(method) else {
            return .error(405, APNsReason.methodNotAllowed, requestID: requestID)
        }
        if let failure = self.authorize(fields, bundleID: bundleID, connection: connection) {
            return .error(failure.status, failure.reason, requestID: requestID)
        }
        if listing {
            let ids = self.store.channels(of: bundleID).map { "\"\($0.id)\"" }
            return .success(200, requestID: requestID, body: "{\"channels\":[" + ids.joined(separator: ",") + "]}")
        }
        if method == "POST" {
            return self.createChannel(request, bundleID: bundleID, requestID: requestID)
        }
        let channel: APNsSimulator.Channel
        switch self.channel(named: fields.channelID, of: bundleID) {
        case .found(let found): channel = found
        case .refused(let reason): return .error(400, reason, requestID: requestID)
        }
        if method == "GET" {
            let body =
                "{\"message-storage-policy\":\(channel.messageStoragePolicy.rawValue),\"push-type\":\"LiveActivity\"}"
            return .success(200, requestID: requestID, body: body)
        }
        // A concurrent delete of the same channel may have won; the loser finds no channel, as it would have a
        // moment later.
        guard self.store.deleteChannel(channel.id, of: bundleID) else {
            return .error(400, APNsReason.channelNotRegistered, requestID: requestID)
        }
        self.store.recorder.withStatistics { $0.channelsDeleted += 1 }
        return .success(204, requestID: requestID)
    }

    /// `POST /1/apps/<bundle id>/channels` with `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`:
    /// `201` with the new channel's `apns-channel-id`.
    private func createChannel(_ request: SimulatorHTTP2Request, bundleID: String, requestID: String) -> APNsResponse {
        guard request.bodyLength > 0, let body = request.body,
            let parsed = try? JSONDecoder().decode(FCMJSONValue.self, from: Data(body.readableBytesView)),
            let members = parsed.object
        else {
            return .error(400, APNsReason.badRequestPayload, requestID: requestID)
        }
        if members.keys.contains(where: { $0 != "message-storage-policy" && $0 != "push-type" }) {
            return .error(400, APNsReason.badRequestParams, requestID: requestID)
        }
        guard let pushType = members["push-type"] else {
            return .error(400, APNsReason.missingPushType, requestID: requestID)
        }
        // Apple documents `LiveActivity`; clients send `liveactivity` too (node-apn does).
        guard pushType.string?.lowercased() == APNsPushType.liveactivity.rawValue else {
            return .error(400, APNsReason.invalidPushType, requestID: requestID)
        }
        guard case .number(let code)? = members["message-storage-policy"],
            let policy = Int(exactly: code).flatMap(APNsSimulator.MessageStoragePolicy.init(rawValue:))
        else {
            return .error(400, self.configuration.invalidMessageStoragePolicyReason, requestID: requestID)
        }
        guard
            let channelID = self.store.createChannel(
                bundleID: bundleID, policy: policy, limit: self.configuration.maxChannelsPerBundle)
        else {
            return .error(400, APNsReason.cannotCreateChannelConfig, requestID: requestID)
        }
        self.store.recorder.withStatistics { $0.channelsCreated += 1 }
        return .success(201, requestID: requestID, channelID: channelID)
    }

    // MARK: Shared checks

    /// The request id the answer carries: the client's `apns-request-id` when it is a UUID, a fresh one when there
    /// is none, and a `400 BadMessageId` (with a fresh one) when it, or an `apns-id`, is malformed. Apple documents
    /// `BadMessageId` for a bad `apns-id` only; a bad `apns-request-id` getting it too is an assumption.
    private func requestID(of fields: APNsRequestFields) -> (id: String, rejection: APNsResponse?) {
        if let requestID = fields.requestID, !Self.isUUID(requestID) {
            let fresh = Self.makeUUID()
            return (fresh, .error(400, APNsReason.badMessageId, requestID: fresh))
        }
        let requestID = fields.requestID ?? Self.makeUUID()
        if let apnsID = fields.apnsID, !Self.isUUID(apnsID) {
            return (requestID, .error(400, APNsReason.badMessageId, requestID: requestID))
        }
        return (requestID, nil)
    }

    /// The credentials, and whether they cover `bundleID` (from the path): `nil` when they do.
    ///
    /// A token must be valid as for device pushes (§1.5); then the bundle id must be bare (`400 TopicDisallowed`
    /// with a push type's suffix), one of the team's (`403 TopicMismatch`), and have Broadcast Capability
    /// (`400 FeatureNotEnabled`). A client certificate covers only its own topic.
    private func authorize(_ fields: APNsRequestFields, bundleID: String, connection: APNsConnectionState)
        -> (status: Int, reason: String)?
    {
        if connection.certificateTopic == nil,
            let failure = self.verifyProviderToken(fields.authorization, connection: connection)
        {
            return failure
        }
        let topics = self.configuration.topics
        for pushType in APNsPushType.allCases {
            guard let suffix = pushType.topicSuffix, !suffix.isEmpty, bundleID.hasSuffix(suffix) else { continue }
            let bare = String(bundleID.dropLast(suffix.count))
            if topics.isEmpty || topics.contains(bare) || connection.certificateTopic == bare {
                return (400, APNsReason.topicDisallowed)
            }
        }
        if let certificateTopic = connection.certificateTopic {
            if bundleID != certificateTopic {
                return (403, APNsReason.topicMismatch)
            }
        } else if !topics.isEmpty, !topics.contains(bundleID) {
            return (403, APNsReason.topicMismatch)
        }
        if let enabled = self.configuration.broadcastTopics, !enabled.contains(bundleID) {
            return (400, APNsReason.featureNotEnabled)
        }
        return nil
    }

    /// The channel `apns-channel-id` names, or the reason it names none: `MissingChannelId`, `BadChannelId` (not
    /// standard padded base64, or too long) or `ChannelNotRegistered` (unknown, deleted, or another bundle id's).
    private func channel(named channelID: String?, of bundleID: String) -> ChannelLookup {
        guard let channelID else {
            return .refused(APNsReason.missingChannelId)
        }
        guard !channelID.isEmpty, channelID.utf8.count <= Self.maximumChannelIDLength,
            Data(base64Encoded: channelID) != nil
        else {
            return .refused(APNsReason.badChannelId)
        }
        guard let channel = self.store.channel(channelID, of: bundleID) else {
            return .refused(APNsReason.channelNotRegistered)
        }
        return .found(channel)
    }

    /// What `apns-channel-id` leads to.
    enum ChannelLookup {
        /// An existing channel of the bundle id.
        case found(APNsSimulator.Channel)
        /// No channel, for this `400` reason.
        case refused(String)
    }
}
