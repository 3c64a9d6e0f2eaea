import HTTPTypes
import Hummingbird
import NIOCore

extension DashboardRoutes {
    /// `GET /dashboard/stream`: Server-Sent Events, one `data:` line a second holding a
    /// ``MetricsSnapshot`` of the registry `GET /metrics` renders, so the names are the same
    /// (``DashboardFeed``). The stream ends when the client goes away or the server shuts down.
    func stream() throws -> Response {
        guard let stream = feed.listen() else { throw APIError.json(.serviceUnavailable, "Too many dashboards open") }
        let body = ResponseBody { writer in
            // `retry`: how long a browser waits before reconnecting after a restart.
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            for await chunk in stream {
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .connection: "close"],
            body: body)
    }
}
