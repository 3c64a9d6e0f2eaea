import Foundation
import HeraldTestSupport
import Synchronization
import Testing

/// The dashboard in a real headless Chromium, driven through `chromedriver`'s WebDriver API: the page
/// loads with no console error, its counters move when a test publishes, and its replay button replays.
///
/// Set `HERALD_DASHBOARD_SCREENSHOT=<file.png>` to keep the screenshot of the busy page (the README's
/// `docs/dashboard.png` is made that way).
@Suite(.serialized) struct DashboardBrowserTests {
    private static let yaml = """
        server:
          auth:
            ops: {password: secret, realms: [register, publish, listen, admin]}
        delivery:
          max_attempts: 2
          retry_delay: 0.01
          max_retry_delay: 0.02
        providers:
          http: {kind: http}
          partner-hooks: {kind: http}
        """
    private static let ops = DashboardTests.ops

    /// Whether the receiver's `/hook/…` paths answer 200 (or 503), shared with its behaviour.
    private final class Health: Sendable {
        let healthy = Mutex(true)
    }

    @Test func countersMoveAndReplayReplaysWithNoConsoleError() async throws {
        let health = Health()
        try await withHerald(yaml: Self.yaml) { herald in
            // `/gone` refuses for good (a dead letter, and an entry in the feedback log); the other paths
            // fail transiently while unhealthy.
            try await withReceiver(behaviour: { received in
                if received.path.hasPrefix("/gone") { return .badRequest }
                return health.healthy.withLock { $0 } ? .ok : .serviceUnavailable
            }) { receiver in
                var hooks: [String] = []
                for (n, proto) in ["http", "http", "partner-hooks", "partner-hooks"].enumerated() {
                    let id = try await register(herald, proto: proto, url: receiver.url("/hook/\(n)"))
                    #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/news", headers: Self.ops).status == 201)
                    hooks.append(id)
                }
                let gone = try await register(herald, proto: "http", url: receiver.url("/gone"))
                #expect(try await herald.request(.POST, "/subscriber/\(gone)/subscriptions/news", headers: Self.ops).status == 201)

                let driver = try await ChromeDriver.start()
                do {
                    let browser = try await driver.session(width: 1440, height: 1500)
                    do {
                        try await exercise(browser, herald: herald, receiver: receiver, hooks: hooks, health: health)
                        await browser.close()
                    } catch {
                        // What the page showed and logged, to tell a Herald failure from a page one.
                        let text = (try? await browser.execute("return document.body.innerText;")) as? String
                        let log = (try? await browser.browserLog()) ?? []
                        Issue.record("the page when it failed:\n\(text ?? "-")\nits console: \(log.map { "\($0.level) \($0.message)" })")
                        await browser.close()
                        throw error
                    }
                } catch {
                    await driver.stop()
                    throw error
                }
                await driver.stop()
            }
        }
    }

    private func exercise(
        _ browser: WebDriverSession, herald: TestHerald, receiver: WebhookReceiver, hooks: [String], health: Health
    ) async throws {
        // The browser is given the credentials in the URL, and sends them with everything the page asks for.
        try await browser.navigate(to: "http://ops:secret@127.0.0.1:\(herald.port)/dashboard")
        #expect(try await browser.execute("return document.title;") as? String == "Herald dashboard")
        let publishes = #"[data-metric="herald_publishes_total"][data-labels='result="accepted"']"#
        try await eventually { try await browser.text(of: publishes) == "0" }
        #expect(try await browser.text(of: "#stream-state") == "live")

        // Counters move when the test publishes.
        #expect(try await herald.request(.POST, "/event/news", form: "msg=first", headers: Self.ops).status == 204)
        _ = try await receiver.waitFor(count: 5)
        try await eventually { try await browser.text(of: publishes) == "1" }
        let delivered = #"[data-metric="herald_deliveries_total"][data-labels='outcome="delivered",provider="partner-hooks"']"#
        try await eventually { try await browser.text(of: delivered) == "2" }
        let refused = #"[data-metric="herald_deliveries_total"][data-labels='outcome="subscriberFailure",provider="http"']"#
        try await eventually { try await browser.text(of: refused) == "1" }
        // The feedback log shows the unregistration of `/gone`, read from /feedback.
        try await eventually { try await browser.text(of: "#feedback tbody tr td:nth-child(3)")?.hasSuffix("/gone") == true }

        // A raw send queued and one refused appear in the front-ends' table, under their origin.
        let send = #"{"proto":"http","tokens":["\#(receiver.url("/hook/raw"))"],"payload":{"a":1}}"#
        #expect(try await herald.request(.POST, "/send", json: send, headers: Self.ops).status == 202)
        let refusedSend = #"{"proto":"http","tokens":["not a URL"],"payload":{"a":1}}"#
        #expect(try await herald.request(.POST, "/send", json: refusedSend, headers: Self.ops).status == 400)
        _ = try await receiver.waitFor(count: 6)
        let queuedCell = #"[data-metric="herald_raw_sends_total"][data-labels='origin="herald",result="accepted"']"#
        try await eventually { try await browser.text(of: queuedCell) == "1" }
        try await eventually { try await browser.text(of: #"tr[data-origin="herald"] [data-sum="herald_raw_sends_total"]"#) == "1" }

        // Every live counter names a sample `/metrics` serves, with the value the page shows.
        let metrics = try await herald.request(.GET, "/metrics", headers: Self.ops).body
        let counters = try #require(try await browser.execute("""
            return [...document.querySelectorAll('[data-metric]')].map(e => [e.dataset.metric, e.dataset.labels || '', e.textContent]);
            """) as? [[String]])
        let expectedCounters: Int = 5 + 2 * 10 + 1
        #expect(counters.count == expectedCounters, "five cards, two providers' rows of ten and a front-end's queued sends")
        for counter in counters {
            let labels = Dictionary(uniqueKeysWithValues: counter[1].split(separator: ",").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1].dropFirst().dropLast()))
            })
            #expect(DashboardTests.metricsText(metrics, has: counter[0], labels: labels), "\(counter[0]){\(counter[1])} is in /metrics")
            #expect(Int(counter[2]) != nil, "\(counter[0]){\(counter[1])} shows a number, not \(counter[2])")
        }

        // Transient failures become dead letters (with `/gone`'s two refusals); the page lists them and replays one.
        health.healthy.withLock { $0 = false }
        #expect(try await herald.request(.POST, "/event/news", form: "msg=second", headers: Self.ops).status == 204)
        try await eventually { try await herald.application.store.counts().deadLetters == 2 + 4 }
        try await eventually { try await browser.execute("return document.querySelectorAll('tr[data-dead-letter]').length;") as? Int == 6 }
        try await eventually { try await browser.text(of: #"[data-sum="herald_dead_letters_total"]"#) == "6" }
        health.healthy.withLock { $0 = true }
        let before = receiver.count
        let firstID = try #require(try await browser.execute("""
            return [...document.querySelectorAll('tr[data-dead-letter]')]
                .find(row => row.textContent.includes('/hook/'))?.dataset.deadLetter ?? null;
            """) as? String)
        try await browser.click(#"button[data-replay="\#(firstID)"]"#)
        try await eventually { try await browser.text(of: "#dead-letter-status") == "replayed 1" }
        _ = try await receiver.waitFor(count: before + 1)
        try await eventually { try await herald.application.store.counts().deadLetters == 5 }
        try await eventually { try await browser.execute("return document.querySelectorAll('tr[data-dead-letter]').length;") as? Int == 5 }

        // The search shows a subscriber and its subscriptions.
        try await browser.type(hooks[2], into: "#search input[name=q]")
        try await browser.click("#search button")
        try await eventually { try await browser.text(of: #"[data-subscriber="\#(hooks[2])"] [data-subscription="news"]"#) == "news" }
        #expect(try await browser.text(of: #"[data-subscriber="\#(hooks[2])"] h3"#)?.contains("partner-hooks") == true)

        // Busy seconds for the chart: publishes spread out (over most of a minute when the screenshot is kept).
        let screenshot = ProcessInfo.processInfo.environment["HERALD_DASHBOARD_SCREENSHOT"]
        let busy = screenshot == nil ? 8 : 90
        for n in 0..<busy {
            for _ in 0..<(1 + n % 3) {
                #expect(try await herald.request(.POST, "/event/news", form: "msg=busy+\(n)", headers: Self.ops).status == 204)
            }
            try await Task.sleep(for: .milliseconds(400))
        }
        let total = 2 + (0..<busy).reduce(0) { $0 + 1 + $1 % 3 }
        try await eventually { try await browser.text(of: publishes) == String(total) }
        _ = try await browser.execute("window.scrollTo(0, 0); return null;")
        let image = try await browser.screenshot()
        #expect(image.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        if let path = screenshot {
            try image.write(to: URL(fileURLWithPath: path))
        }

        // Nothing the page did logged an error: no failed request (a 401, a missing icon), no exception.
        let log = try await browser.browserLog()
        let severe = log.filter { $0.level == "SEVERE" }
        #expect(severe.isEmpty, "console errors: \(severe.map(\.message))")
    }

    private func register(_ herald: TestHerald, proto: String, url: String) async throws -> String {
        let answer = try await herald.request(.POST, "/subscribers", form: "proto=\(proto)&token=\(Fixtures.formEncoded(url))", headers: Self.ops)
        return try #require((try Fixtures.json(answer.body) as? [String: Any])?["id"] as? String)
    }
}
