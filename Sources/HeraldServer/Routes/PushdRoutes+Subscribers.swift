import HeraldCore
import HeraldPipeline
import HeraldStore
import HTTPTypes
import Hummingbird

extension PushdRoutes {
    /// Longest stored token in bytes: far above any push service's (a Web Push subscription is under 1 kB,
    /// a webhook URL rarely over 2 kB), low enough that registrations cannot bloat the store.
    public static let maxTokenLength = 4096

    /// `POST /subscribers` (§4.2).
    func registerSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let body = try await body(request)
        guard let proto = body["proto"]?.scalarText, !proto.isEmpty, let provider = providers[proto] else {
            throw APIError.invalidValue("proto")
        }
        guard let token = provider.normalizeToken(TokenInput(token: body["token"], body: body)),
            token.token.utf8.count <= Self.maxTokenLength, token.identity.utf8.count <= Self.maxTokenLength
        else {
            throw APIError.invalidValue("token")
        }
        let fields: SubscriberFields
        do {
            fields = try SubscriberFields.parse(from: body)
        } catch {
            throw APIError.badRequest(error.reason)
        }
        let registration = SubscriberRegistration(proto: proto, token: token.token, identity: token.identity, fields: fields)
        let (subscriber, created) = try await store.register(registration, now: clock.nowSeconds())
        var response = Response.json(subscriber.jsonText(includeID: true), status: created ? .created : .ok)
        response.headers[.location] = "/subscriber/\(subscriber.id)"
        return response
    }

    /// `GET /subscriber/:id` (§4.3).
    func getSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        guard let subscriber = try await store.subscriber(subscriberID(context)) else { throw APIError.nullNotFound }
        return .json(subscriber.jsonText(includeID: false))
    }

    /// `POST /subscriber/:id` — update ("ping") (§4.4).
    func updateSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let body = try await body(request)
        if body["token"] != nil { throw APIError.badRequest("Can't modify `token` field") }
        if body["proto"] != nil { throw APIError.badRequest("Can't modify `proto` field") }
        let fields: SubscriberFields
        do {
            fields = try SubscriberFields.parse(from: body)
        } catch {
            throw APIError.badRequest(error.reason)
        }
        guard try await store.updateSubscriber(subscriberID(context), fields: fields, now: clock.nowSeconds()) else {
            throw APIError.notFound
        }
        return .noContent
    }

    /// `DELETE /subscriber/:id` (§4.5).
    func deleteSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        guard try await store.deleteSubscriber(subscriberID(context)) else { throw APIError.notFound }
        return .noContent
    }

    /// `POST /subscriber/:id/test` (§4.6).
    func testSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        guard try await publisher.publishTest(to: subscriberID(context)) else { throw APIError.notFound }
        return .bare(.created)
    }
}
