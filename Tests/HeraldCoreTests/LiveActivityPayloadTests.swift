import HeraldCore
import Testing

/// `liveActivity` in a pushd event payload: what it takes, and what it refuses with which reason.
@Suite struct LiveActivityPayloadTests {
    func compile(_ json: String) throws -> PublishedEvent {
        try PayloadCompiler.compile(try JSONBodyParser.parse(Array(json.utf8)), event: "score")
    }

    func reason(_ json: String) throws -> String? {
        do {
            _ = try compile(json)
            return nil
        } catch let error as PayloadError {
            return error.reason
        }
    }

    @Test func anUpdateNeedsNoTitleMessageOrData() throws {
        let event = try compile(#"{"liveActivity":{"event":"update","contentState":{"home":2,"away":1},"staleDate":1800000000,"relevanceScore":0.5}}"#)
        let activity = try #require(event.liveActivity)
        #expect(activity.event == .update)
        #expect(activity.contentState == #"{"home":2,"away":1}"#)
        #expect(activity.staleDate == 1_800_000_000)
        #expect(activity.relevanceScore == "0.5")
        #expect(activity.timestamp == nil, "stamped by the intake")
    }

    @Test func aStartNeedsItsAttributesAndAForm() throws {
        let start = try compile(#"""
            {"msg":"Kick-off","liveActivity":{"event":"start","contentState":{"home":0},"attributesType":"MatchAttributes",
             "attributes":{"match":"A-B"},"inputPushToken":true,"timestamp":"1700000000"}}
            """#)
        #expect(start.liveActivity?.attributesType == "MatchAttributes")
        #expect(start.liveActivity?.inputPushToken == true)
        #expect(start.liveActivity?.timestamp == 1_700_000_000)
        #expect(try reason(#"{"liveActivity":{"event":"start","contentState":{}}}"#) == "Invalid value for `liveActivity.attributesType'")
        #expect(try reason(#"{"liveActivity":{"event":"start","contentState":{},"attributesType":"T"}}"#) == "Invalid value for `liveActivity.attributes'")
    }

    @Test func refusals() throws {
        #expect(try reason(#"{"liveActivity":"update"}"#) == "Invalid value for `liveActivity'")
        #expect(try reason(#"{"liveActivity":{"contentState":{}}}"#) == "Invalid value for `liveActivity.event'")
        #expect(try reason(#"{"liveActivity":{"event":"pause","contentState":{}}}"#) == "Invalid value for `liveActivity.event'")
        #expect(try reason(#"{"liveActivity":{"event":"update"}}"#) == "Invalid value for `liveActivity.contentState'")
        #expect(try reason(#"{"liveActivity":{"event":"update","contentState":"x"}}"#) == "Invalid value for `liveActivity.contentState'")
        #expect(try reason(#"{"liveActivity":{"event":"update","contentState":{},"colour":"red"}}"#) == "Invalid field: liveActivity.colour")
        #expect(try reason(#"{"liveActivity":{"event":"update","contentState":{},"relevanceScore":"0x1p3x"}}"#) == "Invalid value for `liveActivity.relevanceScore'")
        #expect(try reason(#"{"liveActivity":{"event":"update","contentState":{},"staleDate":-1}}"#) == "Invalid value for `liveActivity.staleDate'")
        #expect(try reason(#"{"liveActivity":{"event":"end"}}"#) == nil, "an end may leave the state out")
    }
}
