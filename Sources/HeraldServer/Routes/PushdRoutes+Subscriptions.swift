import HeraldCore
import HeraldIntake
import HeraldPipeline
import HeraldStore
import HTTPTypes
import Hummingbird

extension PushdRoutes {
    /// `GET /subscriber/:id/subscriptions` (§4.7).
    func getSubscriptions(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        try await requireInScope(subscriberID(context), context)
        guard let subscriptions = try await store.subscriptions(of: subscriberID(context)) else { throw APIError.notFound }
        var writer = JSONWriter()
        writer.beginObject()
        for subscription in subscriptions {
            writer.key(subscription.event.rawValue)
            Self.writeOptions(subscription.ignoreMessage, to: &writer)
        }
        writer.endObject()
        return .json(writer.text)
    }

    /// `POST /subscriber/:id/subscriptions` — replace all (§4.8).
    func replaceSubscriptions(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let body = try await body(request)
        guard let members = body.objectMembers else { throw APIError.badRequest("Invalid JSON body") }
        var subscriptions: [(event: EventName, ignoreMessage: Bool)] = []
        var positions: [EventName: Int] = [:]
        for (key, options) in members {
            guard let name = EventName(key) else { throw APIError.invalidEventName(key) }
            var silent = false
            if let optionMembers = options.objectMembers {
                guard let value = IgnoreMessage.parse(BodyValue.object(optionMembers)["ignore_message"]) else {
                    throw APIError.invalidValue("ignore_message")
                }
                silent = value
            }
            // A repeated key: the later one wins, as in a JavaScript object.
            if let position = positions[name] {
                subscriptions[position].ignoreMessage = silent
            } else {
                positions[name] = subscriptions.count
                subscriptions.append((name, silent))
            }
        }
        for subscription in subscriptions { try requireEvent(subscription.event, context) }
        let id = subscriberID(context)
        try await requireInScope(id, context)
        let replaced = try await answering { () async throws(IntakeError) in try await intake.replaceSubscriptions(of: id, with: subscriptions) }
        guard replaced else { throw APIError.notFound }
        return .noContent
    }

    /// `GET /subscriber/:id/subscriptions/:event` (§4.9).
    func getSubscription(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        try await requireInScope(subscriberID(context), context)
        guard let silent = try await store.subscription(of: subscriberID(context), to: event) else { throw APIError.notFound }
        var writer = JSONWriter()
        Self.writeOptions(silent, to: &writer)
        return .json(writer.text)
    }

    /// `POST /subscriber/:id/subscriptions/:event` — subscribe (§4.10).
    func subscribe(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        let body = try await body(request)
        guard let silent = IgnoreMessage.parse(body["ignore_message"]) else { throw APIError.invalidValue("ignore_message") }
        try requireEvent(event, context)
        let id = subscriberID(context)
        try await requireInScope(id, context)
        switch try await answering({ () async throws(IntakeError) in try await intake.subscribe(id, to: event, ignoreMessage: silent) }) {
        case .created: return .bare(.created)
        case .updated: return .noContent
        case .unknownSubscriber: throw APIError.notFound
        }
    }

    /// `DELETE /subscriber/:id/subscriptions/:event` — unsubscribe (§4.11).
    func unsubscribe(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let event = try eventName(context)
        let id = subscriberID(context)
        try await requireInScope(id, context)
        guard try await answering({ () async throws(IntakeError) in try await intake.unsubscribe(id, from: event) }) else { throw APIError.notFound }
        return .noContent
    }

    static func writeOptions(_ silent: Bool, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("ignore_message")
        writer.bool(silent)
        writer.endObject()
    }
}
