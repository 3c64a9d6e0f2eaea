import Foundation
import HeraldCore
import HeraldIntake
import HeraldPipeline
import HeraldStore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The rs/pushd REST API (§4), registered on a Hummingbird router.
///
/// Every route checks authorization first, then the event name, then the body,
/// exactly in the order the spec gives.
public struct PushdRoutes: Sendable {
    /// Largest accepted request body: 1 MiB, as rs/pushd.
    public static let maxBodySize = 1_048_576

    let store: any SubscriberStore & SubscriptionStore & EventStore & StoreHealth
    let providers: ProviderSet
    let intake: Intake
    let authorizer: Authorizer
    let hub: EventStreamHub?
    let logger: Logger
    let clock: WallClock
    /// `GET /status`'s cached ping.
    let health: StatusProbe

    /// Creates the routes. `hub` is `nil` when `event_source.enabled` is false.
    public init(
        store: any SubscriberStore & SubscriptionStore & EventStore & StoreHealth, providers: ProviderSet, intake: Intake, authorizer: Authorizer, hub: EventStreamHub?, logger: Logger,
        clock: WallClock = .system
    ) {
        self.clock = clock
        self.store = store
        self.health = StatusProbe { try await store.ping() }
        self.providers = providers
        self.intake = intake
        self.authorizer = authorizer
        self.hub = hub
        self.logger = logger
    }

    typealias Handler = @Sendable (Request, HeraldRequestContext) async throws -> Response

    /// Adds every route of §4.1 to `router`.
    public func register(on router: Router<HeraldRequestContext>) {
        route(router, "/subscribers", .post, realm: .register, registerSubscriber)
        route(router, "/subscriber/:id", .get, realm: .register, getSubscriber)
        route(router, "/subscriber/:id", .post, realm: .register, updateSubscriber)
        route(router, "/subscriber/:id", .delete, realm: .register, deleteSubscriber)
        route(router, "/subscriber/:id/test", .post, realm: .register, testSubscriber)
        route(router, "/subscriber/:id/subscriptions", .get, realm: .register, getSubscriptions)
        route(router, "/subscriber/:id/subscriptions", .post, realm: .register, replaceSubscriptions)
        route(router, "/subscriber/:id/subscriptions/:event", .get, realm: .register, getSubscription)
        route(router, "/subscriber/:id/subscriptions/:event", .post, realm: .register, subscribe)
        route(router, "/subscriber/:id/subscriptions/:event", .delete, realm: .register, unsubscribe)
        route(router, "/events", .get, realm: .register, listEvents)
        route(router, "/event/:event", .get, realm: .register, getEvent)
        route(router, "/event/:event", .post, realm: .publish, publishEvent)
        route(router, "/event/:event", .delete, realm: .publish, deleteEvent)
        route(router, "/publishes/:id", .get, realm: .publish, getPublish)
        route(router, "/publishes/:id", .delete, realm: .publish, cancelPublish)
        // Load balancers poll it: a limit would take a healthy node out of rotation.
        route(router, "/status", .get, realm: .register, rateLimited: false, status)
        if hub != nil {
            route(router, "/subscribe", .get, realm: .listen, eventStream)
            // A CORS preflight carries no credentials: only the listen ACL applies (§2.2).
            route(router, "/subscribe", .options, realm: nil) { request, context in
                try authorizer.checkACL(realm: .listen, address: context.remoteAddress)
                return try await preflight(request, context)
            }
            route(router, "/crossdomain.xml", .get, realm: nil, crossDomainPolicy)
        }
    }

    private func route(
        _ router: Router<HeraldRequestContext>, _ path: String, _ method: HTTPRequest.Method, realm: Realm?, rateLimited: Bool = true,
        _ handler: @escaping Handler
    ) {
        let authorizer = self.authorizer
        router.on(RouterPath(path), method: method) { request, context -> Response in
            var context = context
            if let realm { context.scopes = try authorizer.authorize(request, context: context, realm: realm, rateLimited: rateLimited) }
            return try await handler(request, context)
        }
    }

    // MARK: - Request parts

    /// The `:event` parameter, percent-decoded and validated (§3.2).
    func eventName(_ context: HeraldRequestContext) throws(APIError) -> EventName {
        let raw = Self.percentDecoded(context.parameters.get("event") ?? "")
        guard let name = EventName(raw) else { throw .invalidEventName(raw) }
        return name
    }

    /// The `:id` parameter, percent-decoded; never validated (an unknown id is simply not found).
    func subscriberID(_ context: HeraldRequestContext) -> SubscriberID {
        SubscriberID(rawValue: Self.percentDecoded(context.parameters.get("id") ?? ""))
    }

    /// Refuses, as if it did not exist, a subscriber of a provider the caller's API token does
    /// not cover: an app's token sees and changes its own subscribers only.
    func requireInScope(_ id: SubscriberID, _ context: HeraldRequestContext, absent: APIError = .notFound) async throws {
        guard let providers = context.scopes?.providers else { return }
        guard let subscriber = try await store.subscriber(id), providers.contains(subscriber.proto) else { throw absent }
    }

    /// Refuses an event the caller's API token names in none of its patterns.
    func requireEvent(_ event: EventName, _ context: HeraldRequestContext) throws(APIError) {
        if let scopes = context.scopes, !scopes.allows(event: event.rawValue) { throw APIError(refusal: .outOfScope("the event \(event.rawValue)")) }
    }

    /// The request body decoded by its content type (§1.2).
    func body(_ request: Request) async throws(APIError) -> BodyValue {
        let buffer = try await request.collectBody()
        do {
            return try RequestBodyDecoder.decode(Array(buffer.readableBytesView), contentType: request.headers[.contentType])
        } catch {
            throw .json(HTTPResponse.Status(code: error.status), error.message)
        }
    }

    static func percentDecoded(_ text: String) -> String {
        // Most names have nothing to decode: Foundation's decoding bridges the string either way.
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        return text.removingPercentEncoding ?? text
    }
}
