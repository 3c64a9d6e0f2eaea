import HeraldCore
import Testing

@testable import HeraldCompatMatrix

@Suite("Matrix → FCM v1 message (compat.md §8.5)")
struct MatrixFCMPayloadTests {
    /// The `fcm_options` of Sygnal's `com.example.gcm.apiv1` app (`tests/test_gcm.py`), with the
    /// Python set it has for `body` written as a string, which is what JSON can say.
    static let sygnalOptions = #"""
        {"android":{"notification":{"body":"test body"}},\#
        "apns":{"payload":{"aps":{"content-available":1,"mutable-content":1,"alert":""}}}}
        """#

    /// The message for the first device of the request `json`.
    private func message(_ json: String, fcmOptions: String = "{}") throws -> PreparedPayload? {
        let (notification, device) = try MatrixFixtures.notificationAndDevice(json)
        let options = try #require(try JSONBodyParser.parse(fcmOptions).objectMembers)
        return MatrixFCMPayload.payload(for: notification, device: device, fcmOptions: options)
    }

    /// The message's `data` for the request `json`, as JSON text.
    private func dataText(_ json: String) throws -> String? {
        guard let prepared = try message(json) else { return nil }
        return try JSONBodyParser.parse(prepared.body)["data"]?.jsonText
    }

    /// The value of `key` in the message's `data` for the request `json`.
    private func dataValue(_ key: String, _ json: String) throws -> BodyValue? {
        let prepared = try #require(try message(json))
        return try JSONBodyParser.parse(prepared.body)["data"]?[key]
    }

    @Test("Sygnal's test_expected_api_v1: fcm_options under the message, data strings, android.priority; no token")
    func expected() throws {
        let prepared = try #require(try message(MatrixFixtures.message(), fcmOptions: Self.sygnalOptions))
        // Herald sends `content.other` (the number 1) as "1", where Sygnal leaves it out (compat.md §8.5).
        #expect(prepared.body == #"""
            {"android":{"notification":{"body":"test body"},"priority":"high"},\#
            "apns":{"payload":{"aps":{"content-available":1,"mutable-content":1,"alert":""}}},\#
            "data":{"event_id":"$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs","type":"m.room.message",\#
            "sender":"@exampleuser:matrix.org","room_name":"Mission Control","room_alias":"#exampleroom:matrix.org",\#
            "sender_display_name":"Major Tom","room_id":"!slw48wfj34rtnrf:example.com","content_msgtype":"m.text",\#
            "content_body":"I'm floating in a most peculiar way.","content_other":"1","prio":"high","unread":"2","missed_calls":"1"}}
            """#)
        #expect(prepared.headers.isEmpty)
        #expect(prepared.label == "matrix")
        #expect(prepared.reference == MatrixFixtures.eventID)
    }

    @Test("without fcm_options: data, then android with its priority")
    func withoutOptions() throws {
        let json = MatrixFixtures.custom(#""event_id":"$e","room_id":"!r","type":"m.room.message","sender":"@a:x""#)
        let prepared = try #require(try message(json))
        #expect(prepared.body == #"""
            {"data":{"event_id":"$e","type":"m.room.message","sender":"@a:x","room_id":"!r","prio":"high"},\#
            "android":{"priority":"high"}}
            """#)
    }

    @Test("prio low: data prio normal and android.priority normal")
    func lowPriority() throws {
        let prepared = try #require(try message(MatrixFixtures.custom(#""event_id":"$e","prio":"low""#)))
        #expect(prepared.body == #"{"data":{"event_id":"$e","prio":"normal"},"android":{"priority":"normal"}}"#)
    }

    @Test("membership and the other notification fields are strings in data")
    func membership() throws {
        let json = MatrixFixtures.custom(#""event_id":"$e","type":"m.room.member","membership":"invite","user_is_target":true"#)
        #expect(try dataText(json) == #"{"event_id":"$e","type":"m.room.member","membership":"invite","prio":"high"}"#)
    }

    // MARK: - content

    @Test("each content key becomes content_<key>; an object is sent as its JSON text (Herald; Sygnal leaves it out)")
    func contentFlattening() throws {
        let json = MatrixFixtures.custom(#"""
            "event_id":"$e","content":{"msgtype":"m.text","body":"hi","m.relates_to":{"rel_type":"m.thread","event_id":"$root"},\#
            "n":2,"ok":true,"none":null}
            """#)
        #expect(try dataText(json) == #"""
            {"event_id":"$e","content_msgtype":"m.text","content_body":"hi",\#
            "content_m.relates_to":"{\"rel_type\":\"m.thread\",\"event_id\":\"$root\"}",\#
            "content_n":"2","content_ok":"true","content_none":"null","prio":"high"}
            """#)
        let relation = try dataValue("content_m.relates_to", json)
        #expect(relation == .string(#"{"rel_type":"m.thread","event_id":"$root"}"#))
    }

    // MARK: - 1024-byte cuts

    @Test("a long field is cut to 1021 bytes plus … (Sygnal's test_api_v1_large_fields)")
    func longField() throws {
        let pattern = "xxxxxxxxxxoooooooooo"
        let long = String(repeating: pattern, count: 100)
        let value = try dataValue("room_name", MatrixFixtures.custom(#""event_id":"$e","room_name":"\#(long)""#))
        let expected = String(long.prefix(1021)) + "…"
        #expect(value == .string(expected))
        #expect(expected.utf8.count == 1024)
    }

    @Test("a cut inside a multi-byte character drops the whole character (Sygnal's ⚑ at byte 1020)")
    func cutOnCharacterBoundary() throws {
        let text = String(repeating: "x", count: 1020) + "\u{2691}" + String(repeating: "y", count: 100)
        let value = try dataValue("content_other", MatrixFixtures.custom(#""event_id":"$e","content":{"other":"\#(text)"}"#))
        #expect(value == .string(String(repeating: "x", count: 1020) + "…"))
    }

    @Test("the JSON text of a long content object is cut the same way")
    func longObjectCut() throws {
        let long = String(repeating: "z", count: 2000)
        let value = try dataValue("content_info", MatrixFixtures.custom(#""event_id":"$e","content":{"info":{"k":"\#(long)"}}"#))
        guard case .string(let text)? = value else {
            Issue.record("content_info is not a string")
            return
        }
        #expect(text.utf8.count == 1024)
        #expect(text.hasPrefix(#"{"k":"zzz"#) && text.hasSuffix("z…"))
    }

    @Test("a field of at most 1024 bytes is sent whole")
    func shortFields() {
        let exact = String(repeating: "a", count: 1024)
        #expect(MatrixFCMPayload.cut(exact) == exact)
        #expect(MatrixFCMPayload.cut("") == "")
        #expect(MatrixFCMPayload.cut(exact + "b") == String(repeating: "a", count: 1021) + "…")
    }

    // MARK: - default_payload

    @Test("default_payload's top-level keys come first; notification fields replace them in place; non-strings as JSON")
    func defaultPayload() throws {
        let device = #"""
            {"app_id":"a","pushkey":"k","data":{"default_payload":{"event_id":"old","cs":{"a":1},"n":5,"from":"x","prio":"z"}}}
            """#
        let json = MatrixFixtures.custom(#""event_id":"$e","room_id":"!r""#, device: device)
        // `from` is a key FCM reserves: left out (compat.md §1.3).
        #expect(try dataText(json) == #"{"event_id":"$e","cs":"{\"a\":1}","n":"5","prio":"high","room_id":"!r"}"#)
    }

    @Test("a default_payload that is not an object sends nothing (test_misformed_default_payload_rejected)")
    func badDefaultPayload() throws {
        #expect(try message(MatrixFixtures.message(device: MatrixFixtures.deviceWithBadDefaultPayload)) == nil)
    }

    // MARK: - Counts and badge-only updates

    @Test("a badge-only update without counts sends nothing")
    func badgeOnlyWithoutCounts() throws {
        #expect(try message(#"{"notification":{"id":"","type":null,"sender":"","devices":[\#(MatrixFixtures.device)]}}"#) == nil)
    }

    @Test("a badge-only update with counts: Sygnal's data, the empty sender included")
    func badgeOnly() throws {
        #expect(try dataText(MatrixFixtures.badgeOnly()) == #"{"sender":"","prio":"high","unread":"2"}"#)
    }

    @Test("event-id-only notifications carry event_id, room_id and the counts")
    func eventIDOnly() throws {
        #expect(try dataText(MatrixFixtures.eventIDOnly()) == #"""
            {"event_id":"$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs","room_id":"!slw48wfj34rtnrf:example.com",\#
            "prio":"high","unread":"2"}
            """#)
    }

    @Test("Herald: counts of 0 are sent (Sygnal leaves a zero out), so a badge can be cleared")
    func zeroCounts() throws {
        let json = MatrixFixtures.custom(#""counts":{"unread":0,"missed_calls":0}"#)
        #expect(try dataText(json) == #"{"prio":"high","unread":"0","missed_calls":"0"}"#)
    }

    // MARK: - fcm_options

    @Test("fcm_options: android merged with the priority, data replaced in place, target keys left out")
    func fcmOptionsMerge() throws {
        let options = #"""
            {"token":"t","data":{"x":"y"},"android":{"priority":"normal","ttl":"60s"},"topic":"news",\#
            "fcm_options":{"analytics_label":"l"}}
            """#
        let prepared = try #require(try message(MatrixFixtures.custom(#""event_id":"$e""#), fcmOptions: options))
        #expect(prepared.body == #"""
            {"data":{"event_id":"$e","prio":"high"},"android":{"priority":"high","ttl":"60s"},\#
            "fcm_options":{"analytics_label":"l"}}
            """#)
    }

    @Test("an fcm_options android that is not an object is replaced")
    func androidNotObject() throws {
        let prepared = try #require(try message(MatrixFixtures.custom(#""event_id":"$e""#), fcmOptions: #"{"android":"x"}"#))
        #expect(prepared.body == #"{"android":{"priority":"high"},"data":{"event_id":"$e","prio":"high"}}"#)
    }
}
