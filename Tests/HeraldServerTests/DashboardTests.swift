import Foundation
import HeraldTestSupport
import Synchronization
import Testing

/// The dashboard's routes without a browser: realm `admin`, the stream's snapshots (named as
/// `/metrics` names them), the subscriber search.
@Suite struct DashboardTests {
    static let yaml = """
        server:
          auth:
            ops: {password: secret, realms: [register, publish, listen, admin]}
            app: {password: pw, realms: [register, publish]}
        """
    static let ops = [("Authorization", "Basic " + Data("ops:secret".utf8).base64EncodedString())]
    static let app = [("Authorization", "Basic " + Data("app:pw".utf8).base64EncodedString())]

    @Test func everyRouteIsInRealmAdminButTheIcon() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            for path in ["/dashboard", "/dashboard/app.js", "/dashboard/style.css", "/dashboard/favicon.svg", "/dashboard/stream", "/dashboard/subscribers?q=x"] {
                #expect(try await herald.request(.GET, path).status == 401, "\(path) without credentials")
                #expect(try await herald.request(.GET, path, headers: Self.app).status == 403, "\(path) for a user without realm admin")
            }
            let page = try await herald.request(.GET, "/dashboard", headers: Self.ops)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.body.contains(#"<script src="/dashboard/app.js" defer></script>"#))
            #expect(!page.body.contains("http://") && !page.body.contains("https://"), "nothing from another origin: the page works offline")
            let script = try await herald.request(.GET, "/dashboard/app.js", headers: Self.ops)
            #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(script.body.contains("new EventSource('/dashboard/stream')"))
            let icon = try await herald.request(.GET, "/favicon.ico")
            #expect(icon.status == 200)
            #expect(icon.body.hasPrefix("<svg"))
        }
    }

    /// The tokens section: its table and form on the page, the script reading and writing `/tokens`.
    @Test func thePageHasTheTokensSection() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let page = try await herald.request(.GET, "/dashboard", headers: Self.ops)
            #expect(page.body.contains(#"id="tokens""#))
            #expect(page.body.contains(#"id="token-form""#))
            let script = try await herald.request(.GET, "/dashboard/app.js", headers: Self.ops)
            #expect(script.body.contains("'/tokens'"))
        }
    }

    @Test func theStreamSendsSnapshotsOfWhatMetricsServes() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let stream = try await EventStreamClient.connect(herald.baseURL + "/dashboard/stream", headers: Self.ops)
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.headers.first(name: "Content-Type") == "text/event-stream")
            try await stream.waitFor("\n\n", limit: .seconds(30))
            try await eventually { stream.received.contains("data: {") && stream.received.hasSuffix("\n\n") }
            let line = try #require(stream.received.split(separator: "\n").first { $0.hasPrefix("data: ") })
            let snapshot = try #require(try Fixtures.json(String(line.dropFirst(6))) as? [String: Any])
            #expect((snapshot["time"] as? Int ?? 0) > 1_700_000_000_000)
            let samples = try #require(snapshot["samples"] as? [[String: Any]])
            let metrics = try await herald.request(.GET, "/metrics", headers: Self.ops).body
            var names: Set<String> = []
            for sample in samples {
                let name = try #require(sample["name"] as? String)
                names.insert(name)
                let labels = try #require(sample["labels"] as? [String: String])
                #expect(Self.metricsText(metrics, has: name, labels: labels), "\(name) \(labels) is served by /metrics")
                let key = labels.keys.sorted().map { "\($0)=\"\(labels[$0]!)\"" }.joined(separator: ",")
                #expect(sample["key"] as? String == key)
            }
            for name in ["herald_publishes_total", "herald_backlog", "herald_retries_due", "herald_deliveries_total", "herald_deliveries_in_flight",
                "herald_retries_total", "herald_dead_letters_total", "herald_sse_listeners"] {
                #expect(names.contains(name), "the snapshot has \(name)")
            }
            #expect(!names.contains("herald_delivery_duration_seconds_bucket"), "histogram buckets are left out")

            // The counters move: a publish is in the next snapshots.
            #expect(try await herald.request(.POST, "/event/news", form: "msg=hi", headers: Self.ops).status == 204)
            try await eventually {
                stream.received.contains(#"{"name":"herald_publishes_total","labels":{"result":"accepted"},"key":"result=\"accepted\"","value":1}"#)
            }
        }
    }

    @Test func searchFindsASubscriberByIdOrTokenWithItsSubscriptions() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let token = "https://hooks.example.com/herald/42"
            let registered = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded(token))&lang=fr", headers: Self.ops)
            let id = try #require((try Fixtures.json(registered.body) as? [String: Any])?["id"] as? String)
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/news", headers: Self.ops).status == 201)
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/sport", form: "ignore_message=1", headers: Self.ops).status == 201)

            for query in [id, token, " \(token) "] {
                let found = try await herald.request(.GET, "/dashboard/subscribers?q=\(Fixtures.formEncoded(query))", headers: Self.ops)
                #expect(found.status == 200)
                let subscribers = try #require((try Fixtures.json(found.body) as? [String: Any])?["subscribers"] as? [[String: Any]])
                #expect(subscribers.count == 1, "\(query)")
                let subscriber = try #require(subscribers.first)
                #expect(subscriber["id"] as? String == id)
                #expect(subscriber["proto"] as? String == "http")
                #expect(subscriber["token"] as? String == token)
                #expect(subscriber["lang"] as? String == "fr")
                let subscriptions = try #require(subscriber["subscriptions"] as? [[String: Any]])
                #expect(subscriptions.map { $0["event"] as? String } == ["news", "sport"])
                #expect(subscriptions.map { $0["ignore_message"] as? Bool } == [false, true])
            }
            let none = try await herald.request(.GET, "/dashboard/subscribers?q=nobody", headers: Self.ops)
            #expect(none.body == #"{"subscribers":[]}"#)
            #expect(try await herald.request(.GET, "/dashboard/subscribers", headers: Self.ops).status == 400)
            #expect(try await herald.request(.GET, "/dashboard/subscribers?q=", headers: Self.ops).status == 400)
        }
    }

    /// A dashboard left open does not keep the server from stopping: the stream ends at shutdown.
    @Test(.timeLimit(.minutes(1))) func anOpenStreamEndsAtShutdown() async throws {
        let herald = try await TestHerald.start(yaml: Self.yaml)
        let stream = try await EventStreamClient.connect(herald.baseURL + "/dashboard/stream", headers: Self.ops)
        defer { stream.close() }
        do {
            try await stream.waitFor("data: {")
        } catch {
            try? await herald.stop()
            throw error
        }
        // The time limit catches a stream that holds the shutdown up; the server ends it between events.
        try await herald.stop()
        await stream.waitForEnd()
        #expect(stream.received.hasSuffix("\n\n"), "the stream ends after a whole event")
    }

    /// The gauges the dashboard added to `/metrics`: a delivery held by its destination is in flight,
    /// and with a window of one the other deliveries of a raw send are due with no worker to take them.
    @Test func deliveriesInFlightAndRetriesDueAreSampled() async throws {
        let held = Mutex(true)
        let yaml = """
            delivery:
              in_flight: 1
            """
        try await withHerald(yaml: yaml) { herald in
            try await withReceiver(behaviour: { _ in
                while held.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
                return .ok
            }) { receiver in
                let tokens = (0..<3).map { "\"\(receiver.url("/raw/\($0)"))\"" }.joined(separator: ",")
                let send = #"{"proto":"http","tokens":[\#(tokens)],"payload":{"k":"v"}}"#
                #expect(try await herald.request(.POST, "/send", json: send).status == 202)
                // The receiver counts a request once answered: the held one shows in the gauges only.
                try await eventually {
                    let metrics = try await herald.request(.GET, "/metrics").body
                    return metrics.contains(#"herald_deliveries_in_flight{provider="http"} 1"#) && metrics.contains("herald_retries_due 2")
                }
                held.withLock { $0 = false }
                _ = try await receiver.waitFor(count: 3)
                try await eventually {
                    let metrics = try await herald.request(.GET, "/metrics").body
                    return metrics.contains(#"herald_deliveries_in_flight{provider="http"} 0"#) && metrics.contains("herald_retries_due 0")
                }
            }
        }
    }

    /// Whether the Prometheus text has a sample of `name` with exactly `labels` (in any order).
    static func metricsText(_ text: String, has name: String, labels: [String: String]) -> Bool {
        text.split(separator: "\n").contains { line in
            guard !line.hasPrefix("#") else { return false }
            if labels.isEmpty { return line.hasPrefix(name + " ") }
            guard line.hasPrefix(name + "{"), let close = line.firstIndex(of: "}") else { return false }
            let inside = line[line.index(line.startIndex, offsetBy: name.count + 1)..<close]
            let pairs = Set(inside.split(separator: ",").map(String.init))
            return pairs == Set(labels.map { "\($0.key)=\"\($0.value)\"" })
        }
    }
}
