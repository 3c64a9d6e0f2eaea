import HeraldCore
import HeraldHTTP2
import HTTPTypes
import NIOCore

/// APNs broadcast channels (iOS 18) on Apple's channel management host, for one app: create, read,
/// list and delete, authenticated with the provider's token. Apple also accepts a certificate
/// there, but a channel carries Live Activities, which Herald sends with tokens only (Apple
/// refuses them from certificate connections to devices), so only a token provider has channels.
///
/// `POST /1/apps/<bundle>/channels` with `{"message-storage-policy":0|1,"push-type":"LiveActivity"}`
/// answers 201 with the new id in `apns-channel-id`; reading and deleting name the channel in that
/// header on `/1/apps/<bundle>/channels`; `GET /1/apps/<bundle>/all-channels` lists the ids.
public struct APNsChannelManager: BroadcastChannels {
    /// The management host's pool (`api-manage-broadcast[.sandbox].push.apple.com`, or `broadcast_endpoint`).
    let pool: HTTP2ConnectionPool
    let token: APNsProviderToken
    /// The app's bundle id (the provider's `topic`).
    let bundleID: String
    /// The deadline of each request.
    let timeout: Duration

    /// The header a channel is named in.
    static let channelIDField = HTTPField.Name("apns-channel-id")!

    public func createChannel(storesLastMessage: Bool) async throws(BroadcastChannelError) -> BroadcastChannel {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("message-storage-policy")
        writer.number(storesLastMessage ? 1 : 0)
        writer.key("push-type")
        writer.string("LiveActivity")
        writer.endObject()
        let response = try await execute(.post, "/1/apps/\(bundleID)/channels", body: writer.text)
        guard response.status == 201, let id = response.headers[Self.channelIDField], !id.isEmpty else {
            throw Self.error(response)
        }
        return BroadcastChannel(id: id, storesLastMessage: storesLastMessage, pushType: "LiveActivity")
    }

    public func channel(_ id: String) async throws(BroadcastChannelError) -> BroadcastChannel {
        let response = try await execute(.get, "/1/apps/\(bundleID)/channels", channel: id)
        guard response.status == 200 else { throw Self.error(response) }
        guard case .object(let members)? = try? JSONBodyParser.parse(response.body.readableBytesView) else {
            throw BroadcastChannelError(status: 200, reason: "an answer that is not a JSON object")
        }
        let fields = BodyValue.object(members)
        let policy = fields["message-storage-policy"]?.scalarText
        return BroadcastChannel(id: id, storesLastMessage: policy == "1", pushType: fields["push-type"]?.scalarText ?? "LiveActivity")
    }

    public func channelIDs() async throws(BroadcastChannelError) -> [String] {
        let response = try await execute(.get, "/1/apps/\(bundleID)/all-channels")
        guard response.status == 200 else { throw Self.error(response) }
        guard case .object(let members)? = try? JSONBodyParser.parse(response.body.readableBytesView),
            case .array(let ids)? = BodyValue.object(members)["channels"]
        else {
            throw BroadcastChannelError(status: 200, reason: "an answer without a channels list")
        }
        return ids.compactMap { if case .string(let id) = $0 { id } else { nil } }
    }

    public func deleteChannel(_ id: String) async throws(BroadcastChannelError) {
        let response = try await execute(.delete, "/1/apps/\(bundleID)/channels", channel: id)
        guard response.status == 204 || response.status == 200 else { throw Self.error(response) }
    }

    /// One request with the provider token; an expired token is refreshed and the request sent once more.
    private func execute(
        _ method: HTTPRequest.Method, _ path: String, channel: String? = nil, body: String? = nil
    ) async throws(BroadcastChannelError) -> HTTP2Response {
        for attempt in 0..<2 {
            let authorization: String
            do {
                authorization = try await token.authorization()
            } catch {
                throw BroadcastChannelError(status: nil, reason: "cannot sign the provider token: \(error)")
            }
            var headers = HTTPFields()
            headers[.authorization] = authorization
            if let channel { headers[Self.channelIDField] = channel }
            if body != nil { headers[.contentType] = "application/json" }
            let request = HTTP2Request(method: method, path: path, headers: headers, body: body.map { ByteBuffer(string: $0) } ?? ByteBuffer())
            let response: HTTP2Response
            do {
                response = try await pool.execute(request, deadline: timeout)
            } catch {
                throw BroadcastChannelError(status: nil, reason: "\(error)")
            }
            if attempt == 0, response.status == 403, Self.reason(response) == APNsResponseTable.expiredProviderToken {
                _ = try? await token.refreshAfterRejection()
                continue
            }
            return response
        }
        throw BroadcastChannelError(status: 403, reason: APNsResponseTable.expiredProviderToken)
    }

    /// Apple's error answer: `{"reason": …}`.
    static func reason(_ response: HTTP2Response) -> String? {
        guard case .object(let members)? = try? JSONBodyParser.parse(response.body.readableBytesView) else { return nil }
        return BodyValue.object(members)["reason"]?.scalarText
    }

    static func error(_ response: HTTP2Response) -> BroadcastChannelError {
        BroadcastChannelError(status: response.status, reason: reason(response) ?? "HTTP \(response.status)")
    }
}
