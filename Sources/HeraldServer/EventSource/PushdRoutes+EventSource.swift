import HeraldCore
import HTTPTypes
import Hummingbird
import NIOCore

extension PushdRoutes {
    /// `GET /subscribe?events=a+b` — Server-Sent Events (§12.1), where ``EventStreamTakeover`` has
    /// not taken the request: on HTTP/2 streams, behind a pipelined request that is still being
    /// answered, and for every refusal, which this route words.
    func eventStream(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        guard let hub else { throw APIError.notFound }
        let asked = try EventStreamRequest(query: request.uri.query.map { Substring($0) }, headers: request.headers)
        guard let stream = hub.listen(to: asked.events, lastEventID: asked.lastEventID) else {
            throw APIError.json(.serviceUnavailable, "Too many event-stream listeners")
        }
        let body = ResponseBody { writer in
            try await writer.write(asked.preamble)
            for await chunk in stream {
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: EventStreamRequest.responseHeaders, body: body)
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
}
