import HeraldCore
import Hummingbird
import Logging

/// Turns every failure into one of the API's answer forms, and writes the access log.
///
/// Unmatched routes answer a bare 404, or 405 with `Allow` when the path is known but not the
/// method; errors that are not ``APIError`` come from the store
/// (or a bug) and answer a bare 503, since the database could not be used (§1.3).
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    let accessLog: Bool
    let logger: Logger
    let metrics: ServerMetrics
    /// Tells a known path asked with another method (405) from an unknown one (404).
    let routeMethods: RouteMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            response = error.response
        } catch let error as HTTPError where error.status == .notFound {
            // Only the router throws Hummingbird's own 404 (Herald's routes throw APIError): no route
            // took the request, so either its path is unknown or its method is.
            if let allowed = routeMethods.allowed(for: request.uri.path) {
                var refusal = APIError.json(.methodNotAllowed, "Method not allowed").response
                refusal.headers[.allow] = allowed.joined(separator: ", ")
                response = refusal
            } else {
                response = APIError.notFound.response
            }
        } catch let error as HTTPResponseError {
            response = APIError.bare(error.status).response
        } catch {
            // The context's logger carries Hummingbird's request id (`hb.request.id`), which ties this line to the access log.
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            response = APIError.unavailable.response
        }
        let route = context.endpointPath ?? "unmatched"
        metrics.request(route: route, method: request.method.rawValue, status: Int(response.status.code))
        if accessLog {
            var line = context.logger
            line.logLevel = logger.logLevel
            // §1.4's `<METHOD> <url> <status>` is the message itself, so operators can grep for `GET /events 200`
            // as they do for the UDP lines (`UDP/POST /event/x 204`); the metadata stays for structured sinks.
            line.info("\(request.method.rawValue) \(Self.url(of: request)) \(response.status.code)", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
                "route": "\(route)",
            ])
        }
        return response
    }

    /// The access log's `<url>`: the path and query string as received (not percent-decoded), like rs/pushd's
    /// `req.url`; an absolute-form request target contributes only its path and query.
    static func url(of request: Request) -> String {
        guard let query = request.uri.query else { return request.uri.path }
        return request.uri.path + "?" + query
    }
}
