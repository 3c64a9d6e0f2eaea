import HeraldCore
import HeraldPipeline
import Hummingbird

/// What browsers need before they can subscribe (realm `register`).
public struct WebPushRoutes: Sendable {
    let providers: ProviderSet
    let authorizer: Authorizer

    /// Creates the routes.
    public init(providers: ProviderSet, authorizer: Authorizer) {
        self.providers = providers
        self.authorizer = authorizer
    }

    /// Adds the routes to `router`.
    public func register(on router: Router<HeraldRequestContext>) {
        let authorizer = self.authorizer
        router.get("/webpush/vapid-public-key") { request, context -> Response in
            try authorizer.authorize(request, context: context, realm: .register)
            return try vapidPublicKey(request)
        }
    }

    /// `GET /webpush/vapid-public-key[?proto=NAME]`: `{"proto":…,"publicKey":…}`, the VAPID public key (uncompressed
    /// P-256 point, base64url) a page passes to `pushManager.subscribe` as `applicationServerKey`.
    ///
    /// `proto` picks among several `webpush` providers; with only one it may be left out.
    func vapidPublicKey(_ request: Request) throws -> Response {
        let webPush = providers.byName.compactMap { $0.value as? any WebPushApplicationServer }.sorted { $0.name < $1.name }
        let chosen: any WebPushApplicationServer
        if let proto = request.uri.queryParameters["proto"] {
            guard let provider = webPush.first(where: { $0.name == String(proto) }) else {
                throw APIError.json(.notFound, "No webpush provider called \(proto)")
            }
            chosen = provider
        } else {
            guard let only = webPush.first else { throw APIError.json(.notFound, "No webpush provider is configured") }
            guard webPush.count == 1 else {
                throw APIError.badRequest("Several webpush providers are configured; pass proto=\(webPush.map(\.name).joined(separator: "|"))")
            }
            chosen = only
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("proto")
        writer.string(chosen.name)
        writer.key("publicKey")
        writer.string(chosen.vapidPublicKey)
        writer.endObject()
        return .json(writer.text)
    }
}
