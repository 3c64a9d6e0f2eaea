import HeraldCore
import HeraldIntake
import HeraldPipeline
import HeraldStore
import HTTPTypes
import Hummingbird

extension PushdRoutes {
    /// `POST /subscribers` (§4.2).
    func registerSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let body = try await body(request)
        let proto = body["proto"]?.scalarText ?? ""
        // An app's token registers with its own providers only, as if no other were configured.
        if let scopes = context.scopes, !scopes.allows(provider: proto) { throw APIError.invalidValue("proto") }
        let token = try await answering { () throws(IntakeError) in try intake.validateToken(proto: proto, TokenInput(token: body["token"], body: body)) }
        let fields: SubscriberFields
        do {
            fields = try SubscriberFields.parse(from: body)
        } catch {
            throw APIError.badRequest(error.reason)
        }
        let (subscriber, created) = try await answering { () async throws(IntakeError) in try await intake.register(proto: proto, token: token, fields: fields) }
        var response = Response.json(subscriber.jsonText(includeID: true), status: created ? .created : .ok)
        response.headers[.location] = "/subscriber/\(subscriber.id)"
        return response
    }

    /// `GET /subscriber/:id` (§4.3).
    func getSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        guard let subscriber = try await store.subscriber(subscriberID(context)), context.scopes?.allows(provider: subscriber.proto) ?? true else {
            throw APIError.nullNotFound
        }
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
        let id = subscriberID(context)
        try await requireInScope(id, context)
        guard try await answering({ () async throws(IntakeError) in try await intake.updateSubscriber(id, fields: fields) }) else {
            throw APIError.notFound
        }
        return .noContent
    }

    /// `DELETE /subscriber/:id` (§4.5).
    func deleteSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let id = subscriberID(context)
        try await requireInScope(id, context)
        guard try await answering({ () async throws(IntakeError) in try await intake.deleteSubscriber(id) }) else { throw APIError.notFound }
        return .noContent
    }

    /// `POST /subscriber/:id/test` (§4.6).
    func testSubscriber(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        try await requireInScope(subscriberID(context), context)
        do {
            try await intake.publishTest(to: subscriberID(context))
        } catch where error.code == .unknownSubscriber {
            throw APIError.notFound  // §4.6: a bare 404, unlike a unicast publish's
        } catch {
            throw APIError(refusal: error)
        }
        return .bare(.created)
    }
}
