import HeraldCore
import HeraldIntake
import HeraldStore
import Hummingbird

extension PushdRoutes {
    /// `GET /publishes/:id` — a publish's receipt: where it is and what came of its deliveries.
    func getPublish(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let id = try publishID(context)
        let status = try await answering { () async throws(IntakeError) in try await intake.receipt(of: id) }
        // Another app's publish is answered as unknown.
        guard context.scopes?.allows(event: status.event) ?? true else { throw APIError(refusal: .unknownPublish(id)) }
        return .json(Self.receiptJSON(status))
    }

    /// `DELETE /publishes/:id` — cancels a publish while it is still scheduled.
    func cancelPublish(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let id = try publishID(context)
        if let scopes = context.scopes, scopes.events != nil {
            let status = try await answering { () async throws(IntakeError) in try await intake.receipt(of: id) }
            guard scopes.allows(event: status.event) else { throw APIError(refusal: .unknownPublish(id)) }
        }
        try await answering { () async throws(IntakeError) in try await intake.cancelPublish(id) }
        return .noContent
    }

    /// The `:id` parameter; ids are 32 lowercase hexadecimal digits, anything else is no publish.
    private func publishID(_ context: HeraldRequestContext) throws -> String {
        let id = context.parameters.get("id") ?? ""
        guard id.utf8.count == 32, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw APIError.json(.notFound, "Unknown publish \(id)")
        }
        return id
    }

    /// The receipt as JSON: times in Unix seconds, `null` until known.
    static func receiptJSON(_ status: PublishStatus) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id")
        writer.string(status.id)
        writer.key("event")
        writer.string(status.event)
        writer.key("state")
        writer.string(status.state.rawValue)
        for (key, value) in [
            ("audience", status.audience), ("delivered", status.delivered), ("failed", status.failed), ("pending", status.pending),
            ("retrying", status.retrying), ("dead_lettered", status.deadLettered), ("skipped", status.skipped),
        ] {
            writer.key(key)
            writer.number(value)
        }
        writer.key("failures")
        writer.beginObject()
        for (reason, count) in status.failures.sorted(by: { $0.key < $1.key }) {
            writer.key(reason)
            writer.number(count)
        }
        writer.endObject()
        for (key, value) in [("created", Optional(status.created)), ("scheduled_at", status.scheduledAt), ("started", status.started), ("finished", status.finished)] {
            writer.key(key)
            if let value { writer.number(value) } else { writer.null() }
        }
        writer.endObject()
        return writer.text
    }
}
