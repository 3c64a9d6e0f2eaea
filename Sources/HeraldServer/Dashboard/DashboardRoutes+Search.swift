import HeraldCore
import HeraldStore
import Hummingbird

extension DashboardRoutes {
    /// Most characters of a search: longer than any id or token a provider accepts.
    static let maxQueryLength = 8192

    /// `GET /dashboard/subscribers?q=<id or token>`: the subscribers with that id, or registered
    /// with that token under any provider (each provider normalizes it as at registration), with
    /// their subscriptions, as `{"subscribers":[...]}`.
    func searchSubscribers(_ request: Request) async throws -> Response {
        guard let raw = request.uri.queryParameters["q"] else { throw APIError.invalidValue("q") }
        let query = String(raw).trimmingWhitespace()
        guard !query.isEmpty, query.utf8.count <= Self.maxQueryLength else { throw APIError.invalidValue("q") }

        var found: [Subscriber] = []
        if let subscriber = try await store.subscriber(SubscriberID(rawValue: query)) { found.append(subscriber) }
        for (name, provider) in providers.byName.sorted(by: { $0.key < $1.key }) {
            guard let token = provider.normalizeToken(TokenInput(token: .string(query))),
                let subscriber = try await store.subscriber(proto: name, identity: token.identity),
                !found.contains(where: { $0.id == subscriber.id })
            else { continue }
            found.append(subscriber)
        }

        var writer = JSONWriter()
        writer.beginObject()
        writer.key("subscribers")
        writer.beginArray()
        for subscriber in found {
            writer.beginObject()
            // The pushd API's form of the subscriber, then what only the dashboard shows.
            subscriber.writeMembers(into: &writer, includeID: true)
            writer.key("failures")
            writer.number(subscriber.failures)
            writer.key("subscriptions")
            writer.beginArray()
            // A subscriber deleted between the two reads has no subscriptions left to show.
            for subscription in try await store.subscriptions(of: subscriber.id) ?? [] {
                writer.beginObject()
                writer.key("event")
                writer.string(subscription.event.rawValue)
                writer.key("ignore_message")
                writer.bool(subscription.ignoreMessage)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return .json(writer.text)
    }
}
