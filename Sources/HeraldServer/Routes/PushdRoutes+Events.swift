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
        for name in try await store.eventNames() { writer.string(name.rawValue) }
        writer.endArray()
        return .json(writer.text)
    }

    /// `GET /event/:event` — statistics (§4.14, §14).
    func getEvent(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        guard let statistics = try await store.statistics(of: event) else { throw APIError.nullNotFound }
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

    /// `POST /event/:event` — publish (§4.15).
    func publishEvent(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        let body = try await body(request)
        try await answering { () async throws(IntakeError) in try await intake.publish(body, to: event) }
        return .noContent
    }

    /// `DELETE /event/:event` (§4.16).
    func deleteEvent(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        guard try await answering({ () async throws(IntakeError) in try await intake.deleteEvent(event) }) else { throw APIError.notFound }
        return .noContent
    }

    /// `GET /status` (§4.17): 204 when a trivial query succeeded within 2 seconds, at most a
    /// second ago (`StoreHealth`), 503 otherwise.
    func status(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let healthy = await health.isHealthy()
        guard healthy else { throw APIError.unavailable }
        return .noContent
    }
}
