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
            #expect(stream.received == "\n" + #"data: {"event":"e2","title":{},"message":{"default":"hi Bob"},"data":{}}"# + "\n\n")
            #expect(try await herald.request(.POST, "/event/other", form: "msg=x").status == 204)
            #expect(try await herald.request(.POST, "/event/e3", form: "msg=three").status == 204)
            try await stream.waitFor("three")
            #expect(!stream.received.contains("other"))
            stream.close()
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
