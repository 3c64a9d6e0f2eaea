import Foundation
import HeraldTestSupport
import Testing

/// Server-Sent Events (§12), acceptance sequence 21 of §16.
@Suite struct EventSourceTests {
    @Test func listenersReceiveCompiledEventsWithoutSubscribers() async throws {
        try await withHerald { herald in
            let stream = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=e2+e3")
            #expect(stream.status == 200)
            #expect(stream.headers.first(name: "Content-Type") == "text/event-stream")
            #expect(stream.headers.first(name: "Cache-Control") == "no-cache")
            #expect(stream.headers.first(name: "Access-Control-Allow-Origin") == "*")
            #expect(stream.headers.first(name: "Content-Length") == nil)
            try await stream.waitFor("\n")
            #expect(try await herald.request(.POST, "/event/e2", form: "msg=hi+%24%7Bvar.n%7D&var.n=Bob").status == 204)
            try await stream.waitFor("\n\n")
            // pushd-api.md §12.1: each event is an `id:` line (for `Last-Event-ID`) and its `data:` line.
            let lines = stream.received.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 5, "\(stream.received)")
            #expect(lines.dropFirst().first?.hasPrefix("id: ") == true)
            #expect(lines.dropFirst(2).first == #"data: {"event":"e2","title":{},"message":{"default":"hi Bob"},"data":{}}"#)
            #expect(try await herald.request(.POST, "/event/other", form: "msg=x").status == 204)
            #expect(try await herald.request(.POST, "/event/e3", form: "msg=three").status == 204)
            try await stream.waitFor("three")
            #expect(!stream.received.contains("other"))
            stream.close()
        }
    }

    /// A listener that reconnects with `Last-Event-ID` (or `lastEventId` in the query, for clients
    /// that cannot set headers) gets what it missed, in order, then live events, and nothing twice.
    @Test(arguments: [false, true])
    func aReconnectingListenerGetsWhatItMissed(inTheQuery: Bool) async throws {
        try await withHerald { herald in
            let first = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=e+f")
            #expect(try await herald.request(.POST, "/event/e", form: "msg=one").status == 204)
            try await first.waitFor("one")
            let id = try #require(first.received.split(separator: "\n").first { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) })
            first.close()
            for message in ["two", "three"] { #expect(try await herald.request(.POST, "/event/e", form: "msg=\(message)").status == 204) }
            #expect(try await herald.request(.POST, "/event/g", form: "msg=unwanted").status == 204)
            #expect(try await herald.request(.POST, "/event/f", form: "msg=four").status == 204)

            let again: EventStreamClient
            if inTheQuery {
                again = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=e+f&lastEventId=\(id)")
            } else {
                again = try await EventStreamClient.connect(
                    herald.baseURL + "/subscribe?events=e+f", headers: [("Accept", "text/event-stream"), ("Last-Event-ID", id)])
            }
            try await again.waitFor("four")
            #expect(try await herald.request(.POST, "/event/e", form: "msg=five").status == 204)
            try await again.waitFor("five")
            let messages = again.received.split(separator: "\n").filter { $0.hasPrefix("data: ") }.compactMap { line in
                ["one", "two", "three", "four", "five", "unwanted"].first { line.contains("\"\($0)\"") }
            }
            #expect(messages == ["two", "three", "four", "five"], "\(again.received)")
            again.close()

            // An id of another node or from before a restart replays nothing.
            let stranger = try await EventStreamClient.connect(
                herald.baseURL + "/subscribe?events=e", headers: [("Accept", "text/event-stream"), ("Last-Event-ID", "elsewhere-1")])
            #expect(try await herald.request(.POST, "/event/e", form: "msg=six").status == 204)
            try await stranger.waitFor("six")
            #expect(!stranger.received.contains("five"))
            stranger.close()
        }
    }

    @Test func listenersBeyondTheCapAreRefusedUntilOneLeaves() async throws {
        try await withHerald(yaml: "event_source:\n  max_listeners: 2\n") { herald in
            let first = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=a")
            let second = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=b")
            #expect(first.status == 200 && second.status == 200)
            let refused = try await herald.request(.GET, "/subscribe?events=c", headers: [("Accept", "text/event-stream")])
            #expect(refused.status == 503)
            #expect(refused.body == #"{"error":"Too many event-stream listeners"}"#)
            first.close()
            try await eventually { try await herald.request(.GET, "/metrics").body.contains("herald_sse_listeners 1") }
            let third = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=c")
            #expect(third.status == 200)
            second.close()
            third.close()
        }
    }

    @Test func keepaliveArrivesPeriodically() async throws {
        try await withHerald(yaml: "event_source:\n  keepalive_interval: 0.05\n") { herald in
            let stream = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=a")
            try await stream.waitFor("\n\n\n")
            #expect(stream.received.allSatisfy { $0 == "\n" })
            stream.close()
        }
    }

    @Test func requestErrors() async throws {
        try await withHerald { herald in
            let missing = try await herald.request(.GET, "/subscribe", headers: [("Accept", "text/event-stream")])
            #expect(missing.status == 400)
            #expect(missing.body == "Bad Request")
            let twice = try await herald.request(.GET, "/subscribe?events=a&events=b")
            #expect(twice.status == 400)
            let json = try await herald.request(.GET, "/subscribe?events=a", headers: [("Accept", "application/json")])
            #expect(json.status == 406)
            #expect(json.body == "Not Acceptable")
            let preflight = try await herald.request(.OPTIONS, "/subscribe", headers: [("Access-Control-Request-Headers", "Last-Event-ID")])
            #expect(preflight.status == 200)
            #expect(preflight.header("Access-Control-Allow-Methods") == "GET")
            #expect(preflight.header("Access-Control-Max-Age") == "86400")
            #expect(preflight.header("Access-Control-Allow-Headers") == "Last-Event-ID")
            #expect(preflight.body.isEmpty)
        }
    }

    @Test func disabledEventSourceAnswers404() async throws {
        try await withHerald(yaml: "event_source:\n  enabled: false\n") { herald throws in
            #expect(try await herald.request(.GET, "/subscribe?events=a").status == 404)
            #expect(try await herald.request(.GET, "/crossdomain.xml").status == 404)
        }
    }
}
