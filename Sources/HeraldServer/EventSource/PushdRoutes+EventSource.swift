import HeraldCore
import HTTPTypes
import Hummingbird
import NIOCore

extension PushdRoutes {
    /// `GET /subscribe?events=a+b` — Server-Sent Events (§12.1).
    func eventStream(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        guard let hub else { throw APIError.notFound }
        let query = try? FormBodyDecoder.decode(Array((request.uri.query ?? "").utf8))
        guard case .string(let list)? = query?["events"] else { throw APIError.bare(.badRequest) }
        let events = list.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !events.isEmpty else { throw APIError.bare(.badRequest) }
        guard Self.acceptsEventStream(request.headers[.accept]) else { throw APIError.bare(.notAcceptable) }

        guard let (_, stream) = hub.listen(to: events) else {
            throw APIError.json(.serviceUnavailable, "Too many event-stream listeners")
        }
        let padding = request.headers[.userAgent]?.contains("MSIE") == true ? 2047 : 0
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: String(repeating: "\n", count: 1 + padding)))
            for await chunk in stream {
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/event-stream",
                .cacheControl: "no-cache",
                .accessControlAllowOrigin: "*",
                .connection: "close",
            ],
            body: body
        )
    }

    /// `OPTIONS /subscribe` — the CORS preflight (§12.2).
    func preflight(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        var headers: HTTPFields = [
            .contentType: "text/event-stream",
            .accessControlAllowOrigin: "*",
            .accessControlAllowMethods: "GET",
            .accessControlMaxAge: "86400",
        ]
        if let requested = request.headers[.accessControlRequestHeaders] {
            headers[.accessControlAllowHeaders] = requested
        }
        return Response(status: .ok, headers: headers, body: .init())
    }

    /// `GET /crossdomain.xml` (§12.3).
    func crossDomainPolicy(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let policy = #"<?xml version="1.0"?><!DOCTYPE cross-domain-policy SYSTEM "http://www.macromedia.com/xml/dtds/cross-domain-policy.dtd"><cross-domain-policy><site-control permitted-cross-domain-policies="master-only"/><allow-access-from domain="*" secure="false"/><allow-http-request-headers-from domain="*" headers="Accept"/></cross-domain-policy>"#
        return Response(status: .ok, headers: [.contentType: "application/xml"], body: .init(byteBuffer: ByteBuffer(string: policy)))
    }

    /// Whether an `Accept` header admits `text/event-stream` with q > 0 (no header admits everything).
    static func acceptsEventStream(_ accept: String?) -> Bool {
        guard let accept, !accept.trimmingWhitespace().isEmpty else { return true }
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { String($0).trimmingWhitespace().lowercased() }
            guard let type = parts.first, type == "text/event-stream" || type == "text/*" || type == "*/*" else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0 { return true }
        }
        return false
    }
}
