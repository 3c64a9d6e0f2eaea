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

    let recorder: RequestRecorder
    /// Tells a known path asked with another method (405) from an unknown one (404).
    let routeMethods: RouteMethods

    /// Only the `await` and its error mapping live here: a connection's task keeps the stack
    /// slabs of the deepest frame it ever ran while the connection lasts (a Server-Sent Events
    /// listener for hours), and the logging and metrics inlined here used to make this one async
    /// frame about 3 KB. They run in the synchronous helpers below, on the thread's stack.
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Self.response(for: error, request: request, context: context, routeMethods: routeMethods)
        }
        record(request, context: context, status: response.status.code)
        return response
    }

    /// The answer to a request that threw `error`.
    @inline(never)
    static func response(for error: any Error, request: Request, context: Context, routeMethods: RouteMethods) -> Response {
        switch error {
        case let error as APIError:
            return error.response
        case let error as HTTPError where error.status == .notFound:
            // Only the router throws Hummingbird's own 404 (Herald's routes throw APIError): no route
            // took the request, so either its path is unknown or its method is.
            guard let allowed = routeMethods.allowed(for: request.uri.path) else { return APIError.notFound.response }
            var refusal = APIError.json(.methodNotAllowed, "Method not allowed").response
            refusal.headers[.allow] = allowed.joined(separator: ", ")
            return refusal
        case let error as HTTPResponseError:
            return APIError.bare(error.status).response
        default:
            // The context's logger carries Hummingbird's request id (`hb.request.id`), which ties this line to the access log.
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return APIError.unavailable.response
        }
    }

    /// Counts the request and writes its access-log line.
    @inline(never)
    func record(_ request: Request, context: Context, status: Int) {
        recorder.record(
            method: request.method.rawValue, path: request.uri.path, target: Self.url(of: request), status: status,
            route: context.endpointPath ?? "unmatched", requestLogger: context.logger)
    }

    /// The access log's `<url>`: the path and query string as received (not percent-decoded), like rs/pushd's
    /// `req.url`; an absolute-form request target contributes only its path and query.
    static func url(of request: Request) -> String {
        guard let query = request.uri.query else { return request.uri.path }
        return request.uri.path + "?" + query
    }
}
