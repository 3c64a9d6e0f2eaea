import HeraldCore
import HeraldIntake
import HeraldPipeline
import HeraldStore
import HTTPTypes
import Hummingbird
import NIOCore

/// Herald's own operator routes (realm `admin`): metrics, the feedback log and dead letters.
public struct AdminRoutes: Sendable {
    /// Most entries one `GET /feedback` returns.
    public static let maxFeedbackPage = 1000

    /// What the routes read: the feedback log, the dead letters and the queues' sizes.
    let store: any FeedbackLog & DeadLetterStore & PublishQueue & RetryQueue & StoreRuntime
    /// What replays and deletes dead letters.
    let intake: Intake
    let authorizer: Authorizer
    let metrics: ServerMetrics
    let hub: EventStreamHub?
    /// The providers, whose connections `/metrics` reports.
    let providers: ProviderSet

    /// Creates the routes.
    public init(
        store: any FeedbackLog & DeadLetterStore & PublishQueue & RetryQueue & StoreRuntime, intake: Intake, authorizer: Authorizer, metrics: ServerMetrics, hub: EventStreamHub?,
        providers: ProviderSet
    ) {
        self.store = store
        self.intake = intake
        self.authorizer = authorizer
        self.metrics = metrics
        self.hub = hub
        self.providers = providers
    }

    /// Adds the routes to `router`.
    public func register(on router: Router<HeraldRequestContext>) {
        let authorizer = self.authorizer
        // An app's token reads and handles its own providers' feedback and dead letters only.
        router.get("/feedback") { request, context -> Response in
            let scopes = try authorizer.authorize(request, context: context, realm: .admin)
            return try await feedback(request, scopes: scopes)
        }
        router.get("/metrics") { request, context -> Response in
            try authorizer.authorize(request, context: context, realm: .admin)?.requireUnscoped("the node's metrics")
            return try await prometheusText()
        }
        router.get("/dead-letters") { request, context -> Response in
            let scopes = try authorizer.authorize(request, context: context, realm: .admin)
            return try await deadLetters(request, scopes: scopes)
        }
        router.post("/dead-letters/replay") { request, context -> Response in
            let scopes = try authorizer.authorize(request, context: context, realm: .admin)
            return try await replayDeadLetters(request, scopes: scopes)
        }
        router.delete("/dead-letters") { request, context -> Response in
            let scopes = try authorizer.authorize(request, context: context, realm: .admin)
            return try await deleteDeadLetters(request, scopes: scopes)
        }
    }

    /// `GET /metrics`: the Prometheus text exposition format, with the backlog and listener gauges sampled now.
    func prometheusText() async throws -> Response {
        try await GaugeSampler(store: store, metrics: metrics, hub: hub, providers: providers).sample()
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer()))
        )
    }

    /// `GET /feedback?since=<unix seconds>&after=<id>&limit=<n>&origin=<front-end>&provider=<name>`: what
    /// the push services reported and which subscribers were unregistered, oldest first, so a back-end
    /// can clean its own records. `origin` and `provider` narrow it to one front-end's or one provider's.
    ///
    /// Answers `{"entries":[...],"next":<id>}`; pass `next` back as `after` to continue. Entries of raw
    /// tokens (sent by a compat front-end) have `"subscriber":null`.
    func feedback(_ request: Request, scopes: TokenScopes? = nil) async throws -> Response {
        let query = request.uri.queryParameters
        func integer(_ name: String) throws(APIError) -> Int64? {
            guard let text = query[name[...]] else { return nil }
            guard let value = Int64(text), value >= 0 else { throw .invalidValue(name) }
            return value
        }
        let since = try integer("since")
        let after = try integer("after")
        let limit = Int(min(try integer("limit") ?? 100, Int64(Self.maxFeedbackPage)))
        func text(_ name: String) throws(APIError) -> String? {
            guard let value = query[name[...]] else { return nil }
            guard !value.isEmpty else { throw .invalidValue(name) }
            return String(value)
        }
        let proto = try scopes.map { scopes throws(APIError) in try scopes.provider(narrowing: text("provider")) } ?? text("provider")
        let filter = FeedbackFilter(origin: try text("origin").map(DeliveryOrigin.init(rawValue:)), proto: proto)
        let entries = try await store.feedback(matching: filter, after: after, since: since, limit: max(1, limit))

        var writer = JSONWriter()
        writer.beginObject()
        writer.key("entries")
        writer.beginArray()
        for entry in entries {
            writer.beginObject()
            writer.key("id")
            writer.number(entry.id)
            writer.key("time")
            writer.number(entry.time)
            writer.key("subscriber")
            if let id = entry.subscriberID { writer.string(id.rawValue) } else { writer.null() }
            writer.key("origin")
            writer.string(entry.origin.rawValue)
            writer.key("proto")
            writer.string(entry.proto)
            writer.key("token")
            writer.string(entry.token)
            writer.key("status")
            if let status = entry.status { writer.number(status) } else { writer.null() }
            writer.key("reason")
            writer.string(entry.reason)
            writer.key("action")
            writer.string(entry.action.rawValue)
            if let replacement = entry.replacement {
                writer.key("replacement")
                writer.string(replacement)
            }
            if let reference = entry.reference {
                writer.key("reference")
                writer.string(reference)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.key("next")
        if let last = entries.last?.id { writer.number(last) } else if let after { writer.number(after) } else { writer.null() }
        writer.endObject()
        return .json(writer.text)
    }
}
