import Logging

/// Counts each answered HTTP request and writes its access-log line (§1.4), for the router's
/// requests and for the event streams served beside it (``EventStreamTakeover``).
struct RequestRecorder: Sendable {
    /// Whether `server.access_log` is on.
    let accessLog: Bool
    /// The server's logger; its level is the access log's.
    let logger: Logger
    let metrics: ServerMetrics

    /// Records a request answered with `status`.
    /// - Parameters:
    ///   - target: The path and query string as received (not percent-decoded), like rs/pushd's `req.url`.
    ///   - route: The route that took it (`unmatched` when none did).
    ///   - requestLogger: The request's own logger when it has one (Hummingbird's carries `hb.request.id`).
    func record(method: String, path: String, target: String, status: Int, route: String, requestLogger: Logger? = nil) {
        metrics.request(route: route, method: method, status: status)
        // Below the logger's level the line would be dropped: skip the logger copy it costs first.
        guard accessLog, logger.logLevel <= .info else { return }
        var line = requestLogger ?? logger
        line.logLevel = logger.logLevel
        // §1.4's `<METHOD> <url> <status>` is the message itself, so operators can grep for `GET /events 200`
        // as they do for the UDP lines (`UDP/POST /event/x 204`); the metadata stays for structured sinks.
        line.info("\(method) \(target) \(status)", metadata: [
            "method": "\(method)", "path": "\(path)", "status": "\(status)", "route": "\(route)",
        ])
    }
}
