import Foundation
import HeraldCore
import HeraldIntake
import HeraldPipeline
import HeraldStore
import HTTPTypes
import Hummingbird

extension PushdRoutes {
    /// `GET /events` (§4.13).
    func listEvents(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        var writer = JSONWriter()
        writer.beginArray()
        // An app's token lists the events its patterns name: another app's names are none of its business.
        for name in try await store.eventNames() where context.scopes?.allows(event: name.rawValue) ?? true { writer.string(name.rawValue) }
        writer.endArray()
        return .json(writer.text)
    }

    /// `GET /event/:event` — statistics (§4.14, §14).
    func getEvent(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        guard context.scopes?.allows(event: event.rawValue) ?? true, let statistics = try await store.statistics(of: event) else {
            throw APIError.nullNotFound
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("created")
        writer.number(statistics.created)
        if let last = statistics.last {
            writer.key("last")
            writer.number(last)
        }
        writer.key("total")
        writer.number(statistics.total)
        writer.key("subscribers")
        writer.number(statistics.subscribers)
        writer.key("delivered")
        writer.number(statistics.delivered)
        writer.key("failed")
        writer.number(statistics.failed)
        writer.endObject()
        return .json(writer.text)
    }

    /// `POST /event/:event` — publish (§4.15). pushd's `204` carries the publish's id in
    /// `Herald-Publish-Id`; a client that accepts JSON gets `202` with `{"id":...}` instead.
    func publishEvent(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        let body = try await body(request)
        let key = request.headers[Self.idempotencyKeyHeader]
        if case .unicast(let id) = event.audience {
            try await requireInScope(id, context, absent: APIError(refusal: .unknownSubscriber(id)))
        }
        let scopes = context.scopes
        let receipt = try await answering { () async throws(IntakeError) in
            try await intake.publish(body, to: event, idempotencyKey: key, scopes: scopes)
        }
        var response: Response
        if Self.acceptsJSON(request) {
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("id")
            writer.string(receipt.id)
            writer.endObject()
            response = .json(writer.text, status: .accepted)
        } else {
            response = .noContent
        }
        response.headers[Self.publishIDHeader] = receipt.id
        return response
    }

    /// The header an accepted publish's id is answered in.
    static let publishIDHeader = HTTPField.Name("Herald-Publish-Id")!
    /// The header a client names a publish with, so that a retried request is not published twice.
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!

    /// Whether `Accept` names `application/json` (pushd's clients send none, or `*/*`, and keep their `204`).
    static func acceptsJSON(_ request: Request) -> Bool {
        request.headers[values: .accept].contains { value in
            value.split(separator: ",").contains { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() == "application/json" }
        }
    }

    /// `DELETE /event/:event` (§4.16).
    func deleteEvent(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        try requireEvent(event, context)
        guard try await answering({ () async throws(IntakeError) in try await intake.deleteEvent(event) }) else { throw APIError.notFound }
        return .noContent
    }

    /// `GET /status` (§4.17): 204 when a trivial query succeeded within 2 seconds, at most a
    /// second ago (`StatusProbe`), 503 otherwise.
    func status(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let healthy = await health.isHealthy()
        guard healthy else { throw APIError.unavailable }
        return .noContent
    }
}
