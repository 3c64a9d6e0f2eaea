import HeraldTestSupport
import Testing

/// A known path asked with a method it does not serve answers 405 with `Allow` (RFC 9110
/// §15.5.6); an unknown path stays a bare 404.
@Suite struct MethodNotAllowedTests {
    @Test func aKnownPathWithAnotherMethodAnswers405WithAllow() async throws {
        try await withHerald { herald in
            let events = try await herald.request(.init(rawValue: "TRACE"), "/events")
            #expect(events.status == 405)
            #expect(events.header("Allow") == "GET, HEAD")
            #expect(events.body == #"{"error":"Method not allowed"}"#)

            // A path with a captured segment.
            let test = try await herald.request(.DELETE, "/subscriber/abcdefghijk/test")
            #expect(test.status == 405)
            #expect(test.header("Allow") == "POST")

            let event = try await herald.request(.PUT, "/event/scores")
            #expect(event.status == 405)
            #expect(event.header("Allow") == "DELETE, GET, HEAD, POST")

            let unknown = try await herald.request(.GET, "/no/such/path")
            #expect(unknown.status == 404)
            #expect(unknown.header("Allow") == nil)
        }
    }

    /// Without `compat.gorush`, gorush's path stays known: `POST` answers the bare 404 the
    /// contract declares for an unconfigured front-end, any other method 405.
    @Test func gorushsPathIsKnownWhenItIsNotConfigured() async throws {
        try await withHerald { herald in
            let push = try await herald.request(.POST, "/api/push", json: #"{"notifications":[]}"#)
            #expect(push.status == 404)
            #expect(push.body == "Not Found")
            let trace = try await herald.request(.init(rawValue: "TRACE"), "/api/push")
            #expect(trace.status == 405)
            #expect(trace.header("Allow") == "POST")
        }
    }

    @Test func deadLetterSelectionsTakeWholeNumbersAsJSONWritesThem() async throws {
        try await withHerald { herald in
            let whole = try await herald.request(.DELETE, "/dead-letters", json: #"{"ids":[978.0],"until":12.0}"#)
            #expect(whole.status == 200, "\(whole.body)")
            #expect(whole.body == #"{"deleted":0}"#)
            #expect(try await herald.request(.DELETE, "/dead-letters", json: #"{"ids":[1.5]}"#).status == 400)
            #expect(try await herald.request(.DELETE, "/dead-letters", json: #"{"ids":[-1]}"#).status == 400)
            #expect(try await herald.request(.POST, "/dead-letters/replay", form: "ids=-1").status == 400)
        }
    }
}
