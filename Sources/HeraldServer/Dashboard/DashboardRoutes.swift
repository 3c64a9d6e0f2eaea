import HeraldCore
import HeraldPipeline
import HeraldStore
import HTTPTypes
import Hummingbird
import NIOCore

/// The live dashboard (realm `admin`): the page and its assets, embedded in the binary, its
/// Server-Sent Events stream of metric snapshots, and the subscriber search behind its search box.
///
/// Everything else the page shows it reads from the routes every operator already has
/// (`/feedback`, `/dead-letters`, `/dead-letters/replay`, `/tokens`), with the credentials the browser was
/// given for the page.
public struct DashboardRoutes: Sendable {
    let store: any SubscriberStore & SubscriptionStore
    let authorizer: Authorizer
    let providers: ProviderSet
    let feed: DashboardFeed

    /// Creates the routes; `feed` is the stream's source (a service of the application).
    public init(store: any SubscriberStore & SubscriptionStore, authorizer: Authorizer, providers: ProviderSet, feed: DashboardFeed) {
        self.store = store
        self.authorizer = authorizer
        self.providers = providers
        self.feed = feed
    }

    /// Adds the routes to `router`.
    public func register(on router: Router<HeraldRequestContext>) {
        let authorizer = self.authorizer
        let assets: [(path: String, type: String, text: String)] = [
            ("/dashboard", "text/html; charset=utf-8", DashboardAssets.html),
            ("/dashboard/app.js", "text/javascript; charset=utf-8", DashboardAssets.script),
            ("/dashboard/style.css", "text/css; charset=utf-8", DashboardAssets.style),
            ("/dashboard/favicon.svg", "image/svg+xml", DashboardAssets.favicon),
        ]
        for asset in assets {
            router.get(RouterPath(asset.path)) { request, context -> Response in
                try authorizer.authorize(request, context: context, realm: .admin)?.requireUnscoped("the dashboard")
                return Self.asset(asset.text, type: asset.type)
            }
        }
        // Browsers ask for it on their own, without a link and often without credentials: an
        // icon says nothing about the server, so it is served to anyone rather than answered 401.
        router.get("/favicon.ico") { _, _ -> Response in
            Self.asset(DashboardAssets.favicon, type: "image/svg+xml")
        }
        router.get("/dashboard/stream") { request, context -> Response in
            try authorizer.authorize(request, context: context, realm: .admin)?.requireUnscoped("the dashboard")
            return try stream()
        }
        router.get("/dashboard/subscribers") { request, context -> Response in
            try authorizer.authorize(request, context: context, realm: .admin)?.requireUnscoped("the dashboard")
            return try await searchSubscribers(request)
        }
    }

    /// An embedded file; `no-cache` so a browser revalidates after an upgrade instead of mixing versions.
    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: type, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
