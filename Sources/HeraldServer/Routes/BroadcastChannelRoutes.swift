import HeraldCore
import HeraldPipeline
import HTTPTypes
import Hummingbird

/// A provider's broadcast channels (APNs, iOS 18), realm `admin`: `POST /apns/<provider>/channels`
/// creates one, `GET /apns/<provider>/channels` lists their ids, `GET` and `DELETE
/// /apns/<provider>/channels/<id>` read and delete one (the id percent-encoded: Apple's are base64).
///
/// Apple's refusals answer 502 `{"error":"APNs answered <status> <reason>"}` (404 for a channel
/// Apple does not know); a provider without channels (certificate authentication) is 404.
struct BroadcastChannelRoutes: Sendable {
    let providers: ProviderSet
    let authorizer: Authorizer

    func register(on router: Router<HeraldRequestContext>) {
        router.post("/apns/:provider/channels") { request, context -> Response in
            let channels = try channels(request, context)
            let body = try await request.collectBody()
            var storesLastMessage = false
            if body.readableBytes > 0 {
                guard case .object(let members)? = try? JSONBodyParser.parse(body.readableBytesView) else {
                    throw APIError.badRequest("Expected an object")
                }
                switch BodyValue.object(members)["message_storage_policy"] {
                case nil, .number("0")?: storesLastMessage = false
                case .number("1")?: storesLastMessage = true
                default: throw APIError.invalidValue("message_storage_policy")
                }
            }
            let channel = try await answering { () async throws(BroadcastChannelError) in try await channels.createChannel(storesLastMessage: storesLastMessage) }
            return .json(Self.json(channel), status: .created)
        }
        router.get("/apns/:provider/channels") { request, context -> Response in
            let channels = try channels(request, context)
            let ids = try await answering { () async throws(BroadcastChannelError) in try await channels.channelIDs() }
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("channels")
            writer.beginArray()
            for id in ids { writer.string(id) }
            writer.endArray()
            writer.endObject()
            return .json(writer.text)
        }
        router.get("/apns/:provider/channels/:id") { request, context -> Response in
            let channels = try channels(request, context)
            let id = PushdRoutes.percentDecoded(context.parameters.get("id") ?? "")
            let channel = try await answering { () async throws(BroadcastChannelError) in try await channels.channel(id) }
            return .json(Self.json(channel))
        }
        router.delete("/apns/:provider/channels/:id") { request, context -> Response in
            let channels = try channels(request, context)
            let id = PushdRoutes.percentDecoded(context.parameters.get("id") ?? "")
            try await answering { () async throws(BroadcastChannelError) in try await channels.deleteChannel(id) }
            return .noContent
        }
    }

    /// Authorizes the request and finds the provider's channels; an app's token reaches its own providers only.
    private func channels(_ request: Request, _ context: HeraldRequestContext) throws(APIError) -> any BroadcastChannels {
        let scopes = try authorizer.authorize(request, context: context, realm: .admin)
        let name = context.parameters.get("provider") ?? ""
        guard scopes?.allows(provider: name) ?? true, let provider = providers[name], provider.kind == "apns" else {
            throw APIError.json(.notFound, "Unknown APNs provider \(name)")
        }
        guard let channels = provider.broadcastChannels else {
            throw APIError.json(.notFound, "The provider \(name) has no broadcast channels (they need token authentication and a topic)")
        }
        return channels
    }

    /// Runs a channel operation, answering Apple's refusal in the API's form.
    @discardableResult
    private func answering<T>(_ operation: () async throws(BroadcastChannelError) -> T) async throws(APIError) -> T {
        do {
            return try await operation()
        } catch {
            if error.isUnknownChannel { throw APIError.json(.notFound, "Unknown channel (APNs answered \(error))") }
            throw APIError.json(.badGateway, "APNs answered \(error)")
        }
    }

    static func json(_ channel: BroadcastChannel) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id")
        writer.string(channel.id)
        writer.key("message_storage_policy")
        writer.number(channel.storesLastMessage ? 1 : 0)
        writer.key("push_type")
        writer.string(channel.pushType)
        writer.endObject()
        return writer.text
    }
}
