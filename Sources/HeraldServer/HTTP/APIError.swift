import HeraldCore
import HTTPTypes
import Hummingbird
import NIOCore

/// Every error answer of the HTTP API, in the three forms rs/pushd used (§1.3).
///
/// Handlers throw these; ``response(from:context:)`` is the one place that turns them into responses.
public struct APIError: Error, HTTPResponseError, Equatable {
    private enum Kind: Equatable {
        /// `{"error":"<message>"}` with a JSON content type.
        case json(HTTPResponse.Status, String)
        /// The reason phrase as `text/plain`.
        case bare(HTTPResponse.Status)
        /// 404 with the JSON body `null`.
        case jsonNull
        /// 401 with the Basic challenge.
        case unauthorized
        /// 401 with the Bearer challenge (RFC 6750), `invalid_token` when one was presented.
        case unauthorizedBearer(invalidToken: Bool)
        /// 503 (bare) with `Retry-After`: too much accepted work is waiting, or the database cannot be used.
        case overloaded(retryAfterSeconds: Int)
        /// 429 `{"error":"Too many requests"}` with `Retry-After`: the client is over its rate limit.
        case tooManyRequests(retryAfterSeconds: Int)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// 400 `{"error":"<message>"}`.
    public static func badRequest(_ message: String) -> APIError { APIError(.json(.badRequest, message)) }
    /// A JSON error with any status.
    public static func json(_ status: HTTPResponse.Status, _ message: String) -> APIError { APIError(.json(status, message)) }
    /// A bare status (`Not Found`, `Bad Request`, ...).
    public static func bare(_ status: HTTPResponse.Status) -> APIError { APIError(.bare(status)) }
    /// 404 (bare).
    public static let notFound = APIError(.bare(.notFound))
    /// 404 with the JSON body `null` (`GET /subscriber/:id`, `GET /event/:event`).
    public static let nullNotFound = APIError(.jsonNull)
    /// 401 with `WWW-Authenticate: Basic realm="Authorization Required"`.
    public static let unauthorized = APIError(.unauthorized)
    /// 401 `{"error":"Invalid token"}` with `WWW-Authenticate: Bearer error="invalid_token"`: an
    /// unknown, revoked or expired API token (which of them is not said).
    public static let invalidToken = APIError(.unauthorizedBearer(invalidToken: true))
    /// 401 `{"error":"Unauthorized"}` with `WWW-Authenticate: Bearer`: no credentials, where API
    /// tokens are the only kind.
    public static let bearerRequired = APIError(.unauthorizedBearer(invalidToken: false))
    /// 403 `{"error":"Unauthorized"}`.
    public static let forbidden = APIError(.json(.forbidden, "Unauthorized"))
    /// 413 `{"error":"Request body too large"}`.
    public static let bodyTooLarge = APIError(.json(.contentTooLarge, "Request body too large"))
    /// 503 (bare) with `Retry-After: 1`: the database cannot be used (it may be restarting, or
    /// unreachable for a moment); nothing was changed, and the client may try again.
    public static let unavailable = APIError(.overloaded(retryAfterSeconds: 1))
    /// 503 (bare) with `Retry-After`: the backlog is over its bound, try again later.
    public static func overloaded(retryAfterSeconds: Int) -> APIError { APIError(.overloaded(retryAfterSeconds: retryAfterSeconds)) }
    /// 429 `{"error":"Too many requests"}` with `Retry-After`: the client is over its realm's rate limit.
    public static func tooManyRequests(retryAfterSeconds: Int) -> APIError { APIError(.tooManyRequests(retryAfterSeconds: retryAfterSeconds)) }
    /// 400 `Invalid event name <name>`.
    public static func invalidEventName(_ name: String) -> APIError { .badRequest("Invalid event name \(name)") }
    /// 400 ``Invalid value for `<field>'``.
    public static func invalidValue(_ field: String) -> APIError { .badRequest("Invalid value for `\(field)'") }

    public var status: HTTPResponse.Status {
        switch kind {
        case .json(let status, _), .bare(let status): status
        case .jsonNull: .notFound
        case .unauthorized, .unauthorizedBearer: .unauthorized
        case .overloaded: .serviceUnavailable
        case .tooManyRequests: .tooManyRequests
        }
    }

    /// The error message of a JSON error, for logs and tests.
    public var message: String? {
        switch kind {
        case .json(_, let message): message
        case .tooManyRequests: Self.tooManyRequestsMessage
        case .unauthorizedBearer(let invalid): invalid ? "Invalid token" : "Unauthorized"
        default: nil
        }
    }

    /// The error text of a rate-limit refusal.
    static let tooManyRequestsMessage = "Too many requests"

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response
    }

    /// The response for this error.
    public var response: Response {
        switch kind {
        case .json(let status, let message):
            return Self.jsonResponse(status, message)
        case .bare(let status):
            return .bare(status)
        case .jsonNull:
            return .json("null", status: .notFound)
        case .unauthorized:
            var response = Response.bare(.unauthorized, body: "Unauthorized")
            response.headers[.wwwAuthenticate] = "Basic realm=\"Authorization Required\""
            return response
        case .unauthorizedBearer(let invalid):
            var response = Self.jsonResponse(.unauthorized, invalid ? "Invalid token" : "Unauthorized")
            response.headers[.wwwAuthenticate] = invalid ? "Bearer error=\"invalid_token\"" : "Bearer"
            return response
        case .overloaded(let seconds):
            var response = Response.bare(.serviceUnavailable)
            response.headers[.retryAfter] = String(seconds)
            return response
        case .tooManyRequests(let seconds):
            var response = Self.jsonResponse(.tooManyRequests, Self.tooManyRequestsMessage)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
    }

    /// `{"error":"<message>"}` with a JSON content type.
    private static func jsonResponse(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("error")
        writer.string(message)
        writer.endObject()
        return .json(writer.text, status: status)
    }
}
