import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

extension DashboardRoutes {
    /// `GET /dashboard/stream`: Server-Sent Events, one `data:` line per `interval` holding a
    /// ``MetricsSnapshot`` of the registry `GET /metrics` renders, so the names are the same.
    ///
    /// The stream ends when the client goes away (a write fails) or the server shuts down.
    func stream() -> Response {
        let sampler = GaugeSampler(store: store, metrics: metrics, hub: hub, providers: providers)
        let metrics = self.metrics
        let interval = self.interval
        let body = ResponseBody { writer in
            // `retry`: how long a browser waits before reconnecting after a restart.
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                // A store that cannot answer leaves its gauges as they were; the counters still move.
                try? await sampler.sample()
                let text = String(decoding: metrics.registry.emitToBuffer(), as: UTF8.self)
                let snapshot = MetricsSnapshot(prometheusText: text)
                let millis = Int64(Date.now.timeIntervalSince1970 * 1000)
                try await writer.write(ByteBuffer(string: "data: \(snapshot.json(timeMillis: millis))\n\n"))
                do {
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
                } catch {
                    break
                }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .connection: "close"],
            body: body)
    }
}
