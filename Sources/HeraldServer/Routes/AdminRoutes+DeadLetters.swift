import Foundation
import HeraldCore
import HeraldIntake
import HeraldStore
import HTTPTypes
import Hummingbird
import NIOCore

extension AdminRoutes {
    /// Most dead letters one listing returns.
    public static let maxDeadLetterPage = 1000
    /// Most dead letters one replay or deletion handles; repeat the call for more.
    public static let maxDeadLetterBatch = 10_000

    /// `GET /dead-letters?provider=&event=&since=&until=&after=&limit=`: deliveries that failed for good,
    /// oldest first, as `{"entries":[...],"next":<id>}`; pass `next` back as `after` to continue.
    func deadLetters(_ request: Request, scopes: TokenScopes? = nil) async throws -> Response {
        var selector = try DeadLetterSelector(query: request.uri.queryParameters, body: nil)
        try selector.narrow(to: scopes)
        let limit = min(selector.limit ?? 100, Self.maxDeadLetterPage)
        let letters = try await store.deadLetters(matching: selector.filter, after: selector.after, limit: limit)

        var writer = JSONWriter()
        writer.beginObject()
        writer.key("entries")
        writer.beginArray()
        for letter in letters {
            writer.beginObject()
            writer.key("id")
            writer.number(letter.id)
            writer.key("time")
            writer.number(letter.time)
            writer.key("subscriber")
            if let id = letter.subscriberID { writer.string(id.rawValue) } else { writer.null() }
            writer.key("origin")
            writer.string(letter.origin.rawValue)
            writer.key("proto")
            writer.string(letter.proto)
            writer.key("token")
            writer.string(letter.token)
            writer.key("event")
            writer.string(letter.content.notification.eventName)
            writer.key("status")
            if let status = letter.status { writer.number(status) } else { writer.null() }
            writer.key("reason")
            writer.string(letter.reason)
            writer.key("attempts")
            writer.number(letter.content.attempts)
            writer.key("published")
            writer.number(letter.content.publishedAt)
            switch letter.content.notification {
            case .event(let event):
                writer.key("notification")
                writer.raw(event.eventJSON(includeText: !letter.content.silent))
            case .prepared(let payload):
                // A raw send's payload as its front-end prepared it: the body as text, and its headers.
                writer.key("payload")
                writer.beginObject()
                writer.key("body")
                writer.string(payload.body)
                if let reference = payload.reference {
                    writer.key("reference")
                    writer.string(reference)
                }
                writer.key("headers")
                writer.beginObject()
                for (name, value) in payload.headers.sorted(by: { $0.key < $1.key }) {
                    writer.key(name)
                    writer.string(name.hasPrefix(PreparedPayload.credentialHeaderPrefix) ? "***" : value)
                }
                writer.endObject()
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endArray()
        writer.key("next")
        if let last = letters.last?.id { writer.number(last) } else if let after = selector.after { writer.number(after) } else { writer.null() }
        writer.endObject()
        return .json(writer.text)
    }

    /// `POST /dead-letters/replay`: sends the selected dead letters again (as pending retries with a fresh
    /// attempt budget) and removes them; answers `{"replayed":n,"orphaned":m}` (orphaned: the subscriber is gone).
    ///
    /// The selection (`ids`, `provider`, `event`, `since`, `until`, `limit`) comes from the query string or the
    /// body (JSON or form); selecting everything needs `all=true`, so an empty request replays nothing by accident.
    func replayDeadLetters(_ request: Request, scopes: TokenScopes? = nil) async throws -> Response {
        var selector = try await DeadLetterSelector(request: request)
        try selector.narrow(to: scopes)
        let limit = min(selector.limit ?? Self.maxDeadLetterBatch, Self.maxDeadLetterBatch)
        let result = try await answering { () async throws(IntakeError) in try await intake.replayDeadLetters(matching: selector.filter, limit: limit) }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("replayed")
        writer.number(result.replayed)
        writer.key("orphaned")
        writer.number(result.orphaned)
        writer.endObject()
        return .json(writer.text)
    }

    /// `DELETE /dead-letters`: drops the selected dead letters (same selection as replay); answers `{"deleted":n}`.
    func deleteDeadLetters(_ request: Request, scopes: TokenScopes? = nil) async throws -> Response {
        var selector = try await DeadLetterSelector(request: request)
        try selector.narrow(to: scopes)
        let limit = min(selector.limit ?? Self.maxDeadLetterBatch, Self.maxDeadLetterBatch)
        let deleted = try await answering { () async throws(IntakeError) in try await intake.deleteDeadLetters(matching: selector.filter, limit: limit) }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("deleted")
        writer.number(deleted)
        writer.endObject()
        return .json(writer.text)
    }
}

/// Which dead letters a request means, read from its query string and (for replay and deletion) its body.
struct DeadLetterSelector {
    var filter = DeadLetterFilter()
    var after: Int64?
    var limit: Int?
    var all = false

    /// Reads a replay or deletion request, which must select something explicitly.
    /// Narrows the selection to what an app's token covers: its provider (``TokenScopes/provider(narrowing:)``).
    mutating func narrow(to scopes: TokenScopes?) throws(APIError) {
        guard let scopes else { return }
        filter.proto = try scopes.provider(narrowing: filter.proto)
    }

    init(request: Request) async throws {
        var body: BodyValue?
        let buffer = try await request.collectBody()
        if buffer.readableBytes > 0 {
            do {
                body = try RequestBodyDecoder.decode(Array(buffer.readableBytesView), contentType: request.headers[.contentType])
            } catch {
                throw APIError.json(HTTPResponse.Status(code: error.status), error.message)
            }
        }
        try self.init(query: request.uri.queryParameters, body: body)
        guard filter.isRestrictive || all else {
            throw APIError.badRequest("Select dead letters with ids, provider, event, origin, since or until, or pass all=true")
        }
    }

    /// Reads the selection; body members win over query parameters of the same name.
    init(query: Hummingbird.Parameters, body: BodyValue?) throws(APIError) {
        var values: [String: BodyValue] = [:]
        for (key, value) in query {
            values[String(key)] = .string(String(value))
        }
        if let body {
            guard let members = body.objectMembers else { throw .badRequest("Expected an object") }
            for (key, value) in members { values[key] = value }
        }
        func integer(_ name: String) throws(APIError) -> Int64? {
            guard let value = values[name] else { return nil }
            guard let text = value.scalarText, let number = BodyValue.wholeNumber(text), number >= 0 else { throw .invalidValue(name) }
            return number
        }
        func text(_ name: String) throws(APIError) -> String? {
            guard let value = values[name] else { return nil }
            guard let text = value.scalarText, !text.isEmpty else { throw .invalidValue(name) }
            return text
        }
        filter.proto = try text("provider")
        filter.event = try text("event")
        filter.origin = try text("origin").map(DeliveryOrigin.init(rawValue:))
        filter.since = try integer("since")
        filter.until = try integer("until")
        after = try integer("after")
        if let limit = try integer("limit") {
            guard limit >= 1 else { throw .invalidValue("limit") }
            self.limit = Int(min(limit, Int64(Int32.max)))
        }
        if let all = values["all"] {
            guard let flag = all.scalarText, ["true", "false", "1", "0"].contains(flag) else { throw .invalidValue("all") }
            self.all = flag == "true" || flag == "1"
        }
        if let ids = values["ids"] {
            // A JSON array of numbers, or a comma-separated list (query string, form).
            let items: [String]
            switch ids {
            case .array(let elements): items = try elements.map { element throws(APIError) in
                guard let text = element.scalarText else { throw .invalidValue("ids") }
                return text
            }
            default:
                guard let text = ids.scalarText else { throw .invalidValue("ids") }
                items = text.split(separator: ",").map { String($0).trimmingWhitespace() }
            }
            let parsed = items.compactMap(BodyValue.wholeNumber).filter { $0 >= 0 }
            guard !items.isEmpty, parsed.count == items.count, items.count <= AdminRoutes.maxDeadLetterBatch else { throw .invalidValue("ids") }
            filter.ids = parsed
        }
    }
}
