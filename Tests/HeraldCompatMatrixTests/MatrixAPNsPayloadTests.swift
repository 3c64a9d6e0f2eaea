import HeraldCore
import Testing

@testable import HeraldCompatMatrix

@Suite("Matrix → APNs payload (compat.md §8.4)")
struct MatrixAPNsPayloadTests {
    /// The payload for the first device of the request `json`.
    private func payload(_ json: String, sendBadgeCounts: Bool = true, pushType: String? = nil) throws -> PreparedPayload? {
        let (notification, device) = try MatrixFixtures.notificationAndDevice(json)
        return MatrixAPNsPayload.payload(for: notification, device: device, sendBadgeCounts: sendBadgeCounts, pushType: pushType)
    }

    /// The `aps.alert` of the payload for a notification with `members`.
    private func alert(_ members: String) throws -> BodyValue? {
        let prepared = try #require(try payload(MatrixFixtures.custom(members)))
        return try JSONBodyParser.parse(prepared.body)["aps"]?["alert"]
    }

    /// The alert object Sygnal builds for `key` and `args`.
    private func locAlert(_ key: String, _ args: [String]) -> BodyValue {
        .object([("loc-key", .string(key)), ("loc-args", .array(args.map { BodyValue.string($0) }))])
    }

    /// `{"aps":{"alert":…}}`-shaped members, parsed from `json`.
    private func members(_ json: String) throws -> [(key: String, value: BodyValue)] {
        try #require(try JSONBodyParser.parse(json).objectMembers)
    }

    /// Sygnal's `simplestring` (`tests/test_apnstruncate.py`): lower-case letters from `offset` on.
    private func simpleString(_ length: Int, offset: Int = 0) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return String((0..<length).map { letters[($0 + offset) % letters.count] })
    }

    /// Sygnal's `sillystring`: four-byte emoji.
    private func sillyString(_ length: Int) -> String {
        let emoji: [Character] = ["\u{1F430}", "\u{1F431}", "\u{1F432}", "\u{1F433}"]
        return String((0..<length).map { emoji[$0 % emoji.count] })
    }

    /// The compact JSON size of `json`'s shape with empty strings: what truncation works around.
    private func overhead(_ json: String) throws -> Int {
        try JSONBodyParser.parse(json).jsonText.utf8.count
    }

    // MARK: - Sygnal's expected payloads (tests/test_apns.py)

    @Test("full form: Sygnal's test_expected, exact JSON and headers")
    func expected() throws {
        let prepared = try #require(try payload(MatrixFixtures.message()))
        #expect(prepared.body == #"""
            {"aps":{"alert":{"loc-key":"MSG_FROM_USER_IN_ROOM_WITH_CONTENT","loc-args":["Major Tom","Mission Control",\#
            "I'm floating in a most peculiar way."]},"badge":3},"room_id":"!slw48wfj34rtnrf:example.com",\#
            "event_id":"$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs"}
            """#)
        #expect(prepared.headers == ["apns-priority": "10", "apns-push-type": "alert"])
        #expect(prepared.label == "matrix")
        #expect(prepared.reference == MatrixFixtures.eventID)
    }

    @Test("full form over a default_payload: aps and aps.alert merged (test_expected_full_with_default_payload)")
    func fullWithDefaultPayload() throws {
        let prepared = try #require(try payload(MatrixFixtures.message(device: MatrixFixtures.deviceWithDefaultPayload)))
        #expect(prepared.body == #"""
            {"aps":{"mutable-content":1,"alert":{"loc-key":"MSG_FROM_USER_IN_ROOM_WITH_CONTENT","loc-args":["Major Tom",\#
            "Mission Control","I'm floating in a most peculiar way."]},"badge":3},"room_id":"!slw48wfj34rtnrf:example.com",\#
            "event_id":"$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs"}
            """#)
    }

    @Test("event_id_only: default_payload plus room_id, event_id, unread_count (test_expected_event_id_only_with_default_payload)")
    func eventIDOnlyWithDefaultPayload() throws {
        let prepared = try #require(try payload(MatrixFixtures.eventIDOnly(device: MatrixFixtures.deviceWithDefaultPayload)))
        #expect(prepared.body == #"""
            {"aps":{"mutable-content":1,"alert":{"loc-key":"SINGLE_UNREAD","loc-args":[]}},\#
            "room_id":"!slw48wfj34rtnrf:example.com","event_id":"$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs","unread_count":2}
            """#)
        #expect(prepared.headers["apns-priority"] == "10")
    }

    @Test("event_id_only without a default_payload, with missed_calls")
    func eventIDOnlyPlain() throws {
        let json = MatrixFixtures.custom(#""event_id":"$e","room_id":"!r","counts":{"unread":0,"missed_calls":4}"#)
        #expect(try payload(json)?.body == #"{"room_id":"!r","event_id":"$e","unread_count":0,"missed_calls":4}"#)
    }

    @Test("event_id_only without badge counts leaves unread_count and missed_calls out")
    func eventIDOnlyWithoutBadgeCounts() throws {
        let json = MatrixFixtures.custom(#""event_id":"$e","room_id":"!r","counts":{"unread":2,"missed_calls":4}"#)
        #expect(try payload(json, sendBadgeCounts: false)?.body == #"{"room_id":"!r","event_id":"$e"}"#)
    }

    @Test("badge-only: aps.badge alone, without the default_payload (test_expected_badge_only_with_default_payload)")
    func badgeOnlyWithDefaultPayload() throws {
        let prepared = try #require(try payload(MatrixFixtures.badgeOnly(device: MatrixFixtures.deviceWithDefaultPayload)))
        #expect(prepared.body == #"{"aps":{"badge":2}}"#)
    }

    @Test("send_badge_counts false: no badge (test_send_badge_counts)")
    func noBadgeCounts() throws {
        let prepared = try #require(try payload(MatrixFixtures.message(), sendBadgeCounts: false))
        let aps = try #require(try JSONBodyParser.parse(prepared.body)["aps"])
        #expect(aps["badge"] == nil)
        #expect(aps["alert"]?["loc-key"] == .string("MSG_FROM_USER_IN_ROOM_WITH_CONTENT"))
    }

    @Test("no loc-key and no badge: nothing is sent (test_send_badge_counts_with_badge_only_notification)")
    func nothingToSend() throws {
        #expect(try payload(MatrixFixtures.badgeOnly(), sendBadgeCounts: false) == nil)
        #expect(try payload(MatrixFixtures.custom(#""id":"","type":null"#)) == nil)
    }

    @Test("a default_payload that is not an object sends nothing (the pushkey is rejected, test_misconfigured_payload_is_rejected)")
    func badDefaultPayload() throws {
        #expect(try payload(MatrixFixtures.message(device: MatrixFixtures.deviceWithBadDefaultPayload)) == nil)
        #expect(try payload(MatrixFixtures.eventIDOnly(device: MatrixFixtures.deviceWithBadDefaultPayload)) == nil)
    }

    // MARK: - Badge

    @Test("badge = unread + missed_calls")
    func badgeSum() throws {
        let both = try #require(try payload(MatrixFixtures.custom(#""type":"m.room.message","counts":{"unread":5,"missed_calls":2}"#)))
        #expect(try JSONBodyParser.parse(both.body)["aps"]?["badge"] == .number("7"))
        let missed = try #require(try payload(MatrixFixtures.custom(#""type":"m.room.message","counts":{"missed_calls":2}"#)))
        #expect(try JSONBodyParser.parse(missed.body)["aps"]?["badge"] == .number("2"))
        let zero = try #require(try payload(MatrixFixtures.custom(#""counts":{"unread":0}"#)))
        #expect(zero.body == #"{"aps":{"badge":0}}"#)
    }

    @Test("without counts there is no badge")
    func noCounts() throws {
        let prepared = try #require(try payload(MatrixFixtures.custom(#""type":"m.room.message","sender":"@a:x""#)))
        #expect(prepared.body == #"{"aps":{"alert":{"loc-key":"MSG_FROM_USER","loc-args":["@a:x"]}}}"#)
    }

    // MARK: - The loc-key table

    @Test("m.text in a named room: MSG_FROM_USER_IN_ROOM_WITH_CONTENT [from, room, content]")
    func textInRoom() throws {
        let members = #""type":"m.room.message","sender_display_name":"Al","room_name":"R","content":{"msgtype":"m.text","body":"hi"}"#
        #expect(try alert(members) == locAlert("MSG_FROM_USER_IN_ROOM_WITH_CONTENT", ["Al", "R", "hi"]))
    }

    @Test("m.emote in a named room: ACTION_FROM_USER_IN_ROOM [room, from, action]")
    func emoteInRoom() throws {
        let members = #""type":"m.room.message","sender_display_name":"Al","room_name":"R","content":{"msgtype":"m.emote","body":"waves"}"#
        #expect(try alert(members) == locAlert("ACTION_FROM_USER_IN_ROOM", ["R", "Al", "waves"]))
    }

    @Test("m.image in a named room: IMAGE_FROM_USER_IN_ROOM [from, content, room]")
    func imageInRoom() throws {
        let members = #""type":"m.room.message","sender_display_name":"Al","room_name":"R","content":{"msgtype":"m.image","body":"c.jpg"}"#
        #expect(try alert(members) == locAlert("IMAGE_FROM_USER_IN_ROOM", ["Al", "c.jpg", "R"]))
    }

    @Test("another msgtype's body is shown as content")
    func otherMsgtype() throws {
        let members = #""type":"m.room.message","sender_display_name":"Al","room_name":"R","content":{"msgtype":"m.notice","body":"beep"}"#
        #expect(try alert(members) == locAlert("MSG_FROM_USER_IN_ROOM_WITH_CONTENT", ["Al", "R", "beep"]))
    }

    @Test("m.room.encrypted (no msgtype, no body) in a room: MSG_FROM_USER_IN_ROOM [from, room]")
    func encryptedInRoom() throws {
        let members = #""type":"m.room.encrypted","sender_display_name":"Al","room_name":"R","content":{"ciphertext":"xyz"}"#
        #expect(try alert(members) == locAlert("MSG_FROM_USER_IN_ROOM", ["Al", "R"]))
    }

    @Test("the room alias stands in for a missing or empty room name")
    func roomAlias() throws {
        let members = #"""
            "type":"m.room.message","sender_display_name":"Al","room_name":"","room_alias":"#r:x",\#
            "content":{"msgtype":"m.text","body":"hi"}
            """#
        #expect(try alert(members) == locAlert("MSG_FROM_USER_IN_ROOM_WITH_CONTENT", ["Al", "#r:x", "hi"]))
    }

    @Test("without a room: IMAGE_FROM_USER, MSG_FROM_USER_WITH_CONTENT, ACTION_FROM_USER, MSG_FROM_USER")
    func withoutRoom() throws {
        let base = #""type":"m.room.message","sender_display_name":"Al""#
        #expect(try alert(base + #","content":{"msgtype":"m.image","body":"cat.jpg"}"#) == locAlert("IMAGE_FROM_USER", ["Al", "cat.jpg"]))
        #expect(try alert(base + #","content":{"msgtype":"m.text","body":"hi"}"#) == locAlert("MSG_FROM_USER_WITH_CONTENT", ["Al", "hi"]))
        #expect(try alert(base + #","content":{"msgtype":"m.emote","body":"waves"}"#) == locAlert("ACTION_FROM_USER", ["Al", "waves"]))
        #expect(try alert(base) == locAlert("MSG_FROM_USER", ["Al"]))
        #expect(try alert(base + #","content":{"msgtype":"m.text","body":""}"#) == locAlert("MSG_FROM_USER", ["Al"]))
    }

    @Test("m.call.invite: VIDEO_CALL_FROM_USER when the SDP offers video, else VOICE_CALL_FROM_USER")
    func callInvite() throws {
        let video = #""type":"m.call.invite","sender":"@a:x","content":{"offer":{"sdp":"v=0\r\nm=audio 9\r\nm=video 9\r\n"}}"#
        #expect(try alert(video) == locAlert("VIDEO_CALL_FROM_USER", ["@a:x"]))
        let voice = #""type":"m.call.invite","sender":"@a:x","content":{"offer":{"sdp":"v=0\r\nm=audio 9\r\n"}}"#
        #expect(try alert(voice) == locAlert("VOICE_CALL_FROM_USER", ["@a:x"]))
        #expect(try alert(#""type":"m.call.invite","sender":"@a:x""#) == locAlert("VOICE_CALL_FROM_USER", ["@a:x"]))
    }

    @Test("an invite of the user: USER_INVITE_TO_NAMED_ROOM [from, room name or alias], else USER_INVITE_TO_CHAT")
    func invite() throws {
        let base = #""type":"m.room.member","user_is_target":true,"membership":"invite","sender_display_name":"Al""#
        #expect(try alert(base + #","room_name":"R""#) == locAlert("USER_INVITE_TO_NAMED_ROOM", ["Al", "R"]))
        #expect(try alert(base + ##","room_alias":"#r:x""##) == locAlert("USER_INVITE_TO_NAMED_ROOM", ["Al", "#r:x"]))
        #expect(try alert(base) == locAlert("USER_INVITE_TO_CHAT", ["Al"]))
    }

    @Test("another membership event has no loc-key: only a badge, without room_id and event_id, or nothing (as Sygnal)")
    func otherMembership() throws {
        let join = #""event_id":"$e","room_id":"!r","type":"m.room.member","user_is_target":true,"membership":"join""#
        #expect(try payload(MatrixFixtures.custom(join)) == nil)
        let counted = try #require(try payload(MatrixFixtures.custom(join + #","counts":{"unread":1}"#)))
        #expect(counted.body == #"{"aps":{"badge":1}}"#)
        let notTarget = #""type":"m.room.member","membership":"invite","room_name":"R""#
        #expect(try payload(MatrixFixtures.custom(notTarget)) == nil)
    }

    @Test("any other type: MSG_FROM_USER [from]")
    func unknownType() throws {
        #expect(try alert(#""type":"m.sticker","sender":"@a:x","room_name":"R""#) == locAlert("MSG_FROM_USER", ["@a:x"]))
    }

    @Test("room_id and event_id go at the top level with a loc-key")
    func identifiersWithLocKey() throws {
        let json = MatrixFixtures.custom(#""event_id":"$e","room_id":"!r","type":"m.sticker","sender":"@a:x""#)
        let prepared = try #require(try payload(json))
        #expect(prepared.body == #"{"aps":{"alert":{"loc-key":"MSG_FROM_USER","loc-args":["@a:x"]}},"room_id":"!r","event_id":"$e"}"#)
    }

    // MARK: - from and the 1024-character cuts

    @Test("from: the display name, else the sender, else a space")
    func fromFallback() throws {
        #expect(try alert(#""type":"m.sticker","sender":"@a:x","sender_display_name":"Al""#) == locAlert("MSG_FROM_USER", ["Al"]))
        #expect(try alert(#""type":"m.sticker","sender":"@a:x""#) == locAlert("MSG_FROM_USER", ["@a:x"]))
        #expect(try alert(#""type":"m.sticker""#) == locAlert("MSG_FROM_USER", [" "]))
        #expect(try alert(#""type":"m.sticker","sender":"","sender_display_name":"""#) == locAlert("MSG_FROM_USER", [" "]))
    }

    @Test("Herald: an empty display name falls back to the sender (Sygnal would show the empty name)")
    func emptyDisplayName() throws {
        #expect(try alert(#""type":"m.sticker","sender":"@a:x","sender_display_name":"""#) == locAlert("MSG_FROM_USER", ["@a:x"]))
    }

    @Test("from and the room are cut to 1024 characters (Unicode scalars, as Python slices)")
    func fieldCuts() throws {
        // Two-byte characters, so that the cut payload stays under 4096 bytes and is not shortened again.
        let name = String(repeating: "\u{E9}", count: 1500)
        let room = String(repeating: "r", count: 2000)
        let members = #"""
            "type":"m.room.message","sender_display_name":"\#(name)","room_name":"\#(room)",\#
            "content":{"msgtype":"m.text","body":"hi"}
            """#
        let expected = locAlert("MSG_FROM_USER_IN_ROOM_WITH_CONTENT", [
            String(repeating: "\u{E9}", count: 1024), String(repeating: "r", count: 1024), "hi",
        ])
        #expect(try alert(members) == expected)
        #expect(MatrixPayloadFields.prefix("abc", scalars: 3) == "abc")
        #expect(MatrixPayloadFields.prefix("e\u{301}x", scalars: 1) == "e")
    }

    // MARK: - Headers

    @Test("prio low: apns-priority 5")
    func lowPriority() throws {
        let prepared = try #require(try payload(MatrixFixtures.custom(#""type":"m.sticker","prio":"low""#)))
        #expect(prepared.headers["apns-priority"] == "5")
        #expect(prepared.headers["apns-push-type"] == "alert")
    }

    @Test("push_type is sent as configured")
    func configuredPushType() throws {
        let prepared = try #require(try payload(MatrixFixtures.message(), pushType: "voip"))
        #expect(prepared.headers["apns-push-type"] == "voip")
        #expect(prepared.headers["apns-priority"] == "10")
    }

    @Test("without push_type, an aps of only content-available is a background push, always at priority 5")
    func backgroundPush() throws {
        let device = #"{"app_id":"a","pushkey":"k","data":{"default_payload":{"aps":{"content-available":1}}}}"#
        let prepared = try #require(try payload(MatrixFixtures.eventIDOnly(device: device)))
        #expect(prepared.headers == ["apns-priority": "5", "apns-push-type": "background"])
        let configured = try #require(try payload(MatrixFixtures.message(), pushType: "background"))
        #expect(configured.headers["apns-priority"] == "5")
    }

    // MARK: - default_payload merging

    @Test("the default's other aps and top-level keys stay; its loc-key, loc-args and badge are replaced")
    func defaultPayloadMerge() throws {
        let device = #"""
            {"app_id":"a","pushkey":"k","data":{"default_payload":{"v":1,"aps":{"sound":"x","badge":9,\#
            "alert":{"title":"T","loc-key":"OLD"}},"room_id":"old"}}}
            """#
        let fields = #""event_id":"$e","room_id":"!r","type":"m.sticker","sender":"@a:x","counts":{"unread":1}"#
        let json = MatrixFixtures.custom(fields, device: device)
        #expect(try payload(json)?.body == #"""
            {"v":1,"aps":{"sound":"x","badge":1,"alert":{"title":"T","loc-key":"MSG_FROM_USER","loc-args":["@a:x"]}},\#
            "room_id":"!r","event_id":"$e"}
            """#)
    }

    @Test("Herald: an alert string in the default is replaced by the loc-key object (Sygnal would fail)")
    func defaultAlertString() throws {
        let device = #"{"app_id":"a","pushkey":"k","data":{"default_payload":{"aps":{"alert":"hello"}}}}"#
        let json = MatrixFixtures.custom(#""type":"m.sticker","sender":"@a:x""#, device: device)
        #expect(try payload(json)?.body == #"{"aps":{"alert":{"loc-key":"MSG_FROM_USER","loc-args":["@a:x"]}}}"#)
    }

    // MARK: - Truncation to 4096 bytes

    @Test("a long body is shortened until the payload is 4096 bytes; everything else is intact")
    func longBody() throws {
        let long = String(repeating: "a", count: 6000)
        let members = #"""
            "event_id":"$e","room_id":"!r","type":"m.room.message","sender_display_name":"Major Tom",\#
            "room_name":"Mission Control","content":{"msgtype":"m.text","body":"\#(long)"},"counts":{"unread":2}
            """#
        let prepared = try #require(try payload(MatrixFixtures.custom(members)))
        #expect(prepared.body.utf8.count == 4096)
        let parsed = try JSONBodyParser.parse(prepared.body)
        guard case .array(let args)? = parsed["aps"]?["alert"]?["loc-args"], args.count == 3, case .string(let body) = args[2] else {
            Issue.record("no loc-args in \(prepared.body)")
            return
        }
        #expect(args[0] == .string("Major Tom"))
        #expect(args[1] == .string("Mission Control"))
        #expect(body.count > 3900 && long.hasPrefix(body))
        #expect(parsed["aps"]?["badge"] == .number("2"))
        #expect(parsed["room_id"] == .string("!r"))
        #expect(parsed["event_id"] == .string("$e"))
    }

    @Test("escaped characters are counted as sent: a body of quotes ends within 4096 bytes")
    func escapedBody() throws {
        let quotes = String(repeating: "\"", count: 3000)
        let members = #""type":"m.room.message","sender":"@a:x","content":{"msgtype":"m.text","body":\#(JSONWriter.quoted(quotes))}"#
        let prepared = try #require(try payload(MatrixFixtures.custom(members)))
        #expect(prepared.body.utf8.count <= 4096 && prepared.body.utf8.count >= 4095)
        let args = try JSONBodyParser.parse(prepared.body)["aps"]?["alert"]?["loc-args"]
        guard case .array(let elements)? = args, case .string(let body)? = elements.last else {
            Issue.record("no loc-args in \(prepared.body)")
            return
        }
        #expect(elements.first == .string("@a:x"))
        #expect(body.allSatisfy { $0 == "\"" } && body.count > 1900)
    }

    @Test("a payload that fits is not changed (test_dont_truncate)")
    func dontTruncate() throws {
        let text = simpleString(20)
        let payload = try members(#"{"aps":{"alert":"\#(text)"}}"#)
        #expect(BodyValue.object(MatrixAPNsPayload.truncated(payload, maximumBytes: 256)) == BodyValue.object(payload))
    }

    @Test("an alert string is shortened (test_truncate_alert)")
    func truncateAlert() throws {
        let limit = try overhead(#"{"aps":{"alert":""}}"#) + 5
        let payload = try members(#"{"aps":{"alert":"\#(simpleString(10))"}}"#)
        let result = BodyValue.object(MatrixAPNsPayload.truncated(payload, maximumBytes: limit))
        #expect(result["aps"]?["alert"] == .string(simpleString(5)))
    }

    @Test("aps.alert.body is shortened (test_truncate_alert_body)")
    func truncateAlertBody() throws {
        let limit = try overhead(#"{"aps":{"alert":{"body":""}}}"#) + 5
        let payload = try members(#"{"aps":{"alert":{"body":"\#(simpleString(10))"}}}"#)
        let result = BodyValue.object(MatrixAPNsPayload.truncated(payload, maximumBytes: limit))
        #expect(result["aps"]?["alert"]?["body"] == .string(simpleString(5)))
    }

    @Test("a loc-args entry is shortened (test_truncate_loc_arg)")
    func truncateLocArg() throws {
        let limit = try overhead(#"{"aps":{"alert":{"loc-args":[""]}}}"#) + 5
        let payload = try members(#"{"aps":{"alert":{"loc-args":["\#(simpleString(10))"]}}}"#)
        let result = BodyValue.object(MatrixAPNsPayload.truncated(payload, maximumBytes: limit))
        #expect(result["aps"]?["alert"]?["loc-args"] == .array([.string(simpleString(5))]))
    }

    @Test("the longest loc-args entry is shortened first, so equal ones end equal (test_truncate_loc_args)")
    func truncateLocArgs() throws {
        let limit = try overhead(#"{"aps":{"alert":{"loc-args":["",""]}}}"#) + 10
        let payload = try members(#"{"aps":{"alert":{"loc-args":["\#(simpleString(10))","\#(simpleString(10, offset: 3))"]}}}"#)
        let result = BodyValue.object(MatrixAPNsPayload.truncated(payload, maximumBytes: limit))
        #expect(result["aps"]?["alert"]?["loc-args"] == .array([.string(simpleString(5)), .string(simpleString(5, offset: 3))]))
    }

    @Test("a string with one multi-byte character loses whole characters (test_truncate_string_with_multibyte)")
    func truncateMultibyte() throws {
        let limit = try overhead(#"{"aps":{"alert":""}}"#) + 20
        let payload = try members(#"{"aps":{"alert":"\#u{1F430}\#(simpleString(30))"}}"#)
        let result = BodyValue.object(MatrixAPNsPayload.truncated(payload, maximumBytes: limit))
        #expect(result["aps"]?["alert"] == .string("\u{1F430}" + simpleString(16)))
    }

    @Test("a string of four-byte characters keeps a whole number of them (test_truncate_multibyte)")
    func truncateAllMultibyte() throws {
        let limit = try overhead(#"{"aps":{"alert":""}}"#) + 30
        let payload = try members(#"{"aps":{"alert":"\#(sillyString(30))"}}"#)
        let result = BodyValue.object(MatrixAPNsPayload.truncated(payload, maximumBytes: limit))
        #expect(result["aps"]?["alert"] == .string(sillyString(7)))
    }

    @Test("nothing to shorten: the payload is returned as it is, for the provider to refuse")
    func nothingToShorten() throws {
        let payload = try members(#"{"aps":{"badge":1},"x":"\#(simpleString(100))"}"#)
        #expect(BodyValue.object(MatrixAPNsPayload.truncated(payload, maximumBytes: 50)) == BodyValue.object(payload))
    }

    // MARK: - Pushkey → token

    @Test("a base64 pushkey of 32 bytes becomes lower-case hex")
    func hexToken() {
        let hex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        #expect(MatrixAPNsPayload.token(fromPushkey: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", convertToHex: true) == hex)
        #expect(MatrixAPNsPayload.token(fromPushkey: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", convertToHex: true) == hex)
    }

    @Test("longer tokens, both base64 alphabets")
    func longerToken() {
        let hex = "c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8"
        #expect(MatrixAPNsPayload.token(fromPushkey: "yMnKy8zNzs/Q0dLT1NXW19jZ2tvc3d7f4OHi4+Tl5ufo", convertToHex: true) == hex)
        #expect(MatrixAPNsPayload.token(fromPushkey: "yMnKy8zNzs_Q0dLT1NXW19jZ2tvc3d7f4OHi4-Tl5ufo", convertToHex: true) == hex)
    }

    @Test("malformed pushkeys: not base64, or fewer than 32 bytes (Sygnal's test pushkey spqr included)")
    func malformedPushkey() {
        #expect(MatrixAPNsPayload.token(fromPushkey: "spqr", convertToHex: true) == nil)
        #expect(MatrixAPNsPayload.token(fromPushkey: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==", convertToHex: true) == nil)
        #expect(MatrixAPNsPayload.token(fromPushkey: "not base64 at all!", convertToHex: true) == nil)
        #expect(MatrixAPNsPayload.token(fromPushkey: "", convertToHex: true) == nil)
    }

    @Test("convert_device_token_to_hex false: the pushkey as it is")
    func pushkeyAsIs() {
        #expect(MatrixAPNsPayload.token(fromPushkey: "spqr", convertToHex: false) == "spqr")
        #expect(MatrixAPNsPayload.token(fromPushkey: "", convertToHex: false) == nil)
    }
}
