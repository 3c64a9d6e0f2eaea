import HeraldCore
import Testing

@testable import HeraldCompatMatrix

@Suite("Matrix notification decoding (compat.md §8.2, §8.3)")
struct MatrixNotificationTests {
    @Test("every field of Sygnal's dummy notification is read")
    func fullNotification() throws {
        let notification = try MatrixFixtures.notification(MatrixFixtures.message())
        #expect(notification.eventID == MatrixFixtures.eventID)
        #expect(notification.roomID == MatrixFixtures.roomID)
        #expect(notification.type == "m.room.message")
        #expect(notification.sender == "@exampleuser:matrix.org")
        #expect(notification.senderDisplayName == "Major Tom")
        #expect(notification.roomName == "Mission Control")
        #expect(notification.roomAlias == "#exampleroom:matrix.org")
        #expect(notification.userIsTarget == false)
        #expect(notification.membership == nil)
        #expect(notification.prio == .high)
        #expect(notification.unread == 2)
        #expect(notification.missedCalls == 1)
        let content = try #require(notification.content)
        #expect(BodyValue.object(content).jsonText == #"{"msgtype":"m.text","body":"I'm floating in a most peculiar way.","other":1}"#)
        #expect(notification.devices.count == 1)
        #expect(notification.isEventIDOnly == false)
    }

    @Test("a device's app_id, pushkey, pushkey_ts, data and tweaks")
    func device() throws {
        let device = #"""
            {"app_id":"im.example.ios","pushkey":"abc","pushkey_ts":1700000000000,
             "data":{"format":"event_id_only","default_payload":{"aps":{"mutable-content":1}},"url":"https://x"},
             "tweaks":{"sound":"bing"}}
            """#
        let (_, parsed) = try MatrixFixtures.notificationAndDevice(MatrixFixtures.eventIDOnly(device: device))
        #expect(parsed.appID == "im.example.ios")
        #expect(parsed.pushkey == "abc")
        #expect(parsed.pushkeyTS == 1_700_000_000_000)
        #expect(parsed.format == "event_id_only")
        #expect(parsed.defaultPayload.map { BodyValue.object($0).jsonText } == #"{"aps":{"mutable-content":1}}"#)
        #expect(parsed.sound == "bing")
        #expect(parsed.data.map { $0.key } == ["format", "default_payload", "url"])
    }

    @Test("a device without data has an empty default_payload; a non-object one is nil (Sygnal rejects the pushkey)")
    func defaultPayloadShapes() throws {
        let (_, plain) = try MatrixFixtures.notificationAndDevice(MatrixFixtures.message())
        #expect(plain.defaultPayload?.isEmpty == true)
        #expect(plain.pushkeyTS == 42)
        let (_, bad) = try MatrixFixtures.notificationAndDevice(MatrixFixtures.message(device: MatrixFixtures.deviceWithBadDefaultPayload))
        #expect(bad.defaultPayload == nil)
        let listed = #"{"app_id":"a","pushkey":"k","data":{"default_payload":[1]}}"#
        let (_, list) = try MatrixFixtures.notificationAndDevice(MatrixFixtures.message(device: listed))
        #expect(list.defaultPayload == nil)
    }

    @Test("Synapse's badge-only update: type null and an empty id are accepted")
    func badgeOnly() throws {
        let notification = try MatrixFixtures.notification(MatrixFixtures.badgeOnly())
        #expect(notification.type == nil)
        #expect(notification.eventID == nil)
        #expect(notification.sender == "")
        #expect(notification.unread == 2)
        #expect(notification.missedCalls == nil)
        #expect(notification.isEventIDOnly == false)
    }

    @Test("prio is low only for the string low")
    func priority() throws {
        #expect(try MatrixFixtures.notification(MatrixFixtures.custom(#""prio":"low""#)).prio == .low)
        #expect(try MatrixFixtures.notification(MatrixFixtures.custom(#""prio":"high""#)).prio == .high)
        #expect(try MatrixFixtures.notification(MatrixFixtures.custom(#""prio":"LOW""#)).prio == .high)
        #expect(try MatrixFixtures.notification(MatrixFixtures.custom(#""event_id":"$e""#)).prio == .high)
    }

    @Test("user_is_target and membership of an invite")
    func invite() throws {
        let notification = try MatrixFixtures.notification(
            MatrixFixtures.custom(#""type":"m.room.member","user_is_target":true,"membership":"invite""#))
        #expect(notification.userIsTarget)
        #expect(notification.membership == "invite")
    }

    @Test("event_id_only: an event_id and no type, whatever the device's data.format says (as Sygnal decides)")
    func eventIDOnly() throws {
        #expect(try MatrixFixtures.notification(MatrixFixtures.eventIDOnly()).isEventIDOnly)
        #expect(try MatrixFixtures.notification(MatrixFixtures.custom(#""event_id":"$e","type":null"#)).isEventIDOnly)
        #expect(try MatrixFixtures.notification(MatrixFixtures.custom(#""type":"","event_id":"$e""#)).isEventIDOnly)
        #expect(try MatrixFixtures.notification(MatrixFixtures.custom(#""event_id":"","type":null"#)).isEventIDOnly == false)
        #expect(try MatrixFixtures.notification(MatrixFixtures.custom(#""event_id":"$e","type":"m.room.message""#)).isEventIDOnly == false)
        let formatted = #"{"app_id":"a","pushkey":"k","data":{"format":"event_id_only"}}"#
        let full = MatrixFixtures.custom(#""event_id":"$e","type":"m.room.message""#, device: formatted)
        #expect(try MatrixFixtures.notification(full).isEventIDOnly == false)
    }

    @Test("optional text fields of another type read as absent")
    func lenientFields() throws {
        let notification = try MatrixFixtures.notification(
            MatrixFixtures.custom(#""event_id":"$e","room_name":5,"sender":null,"content":"text","user_is_target":"yes""#))
        #expect(notification.roomName == nil)
        #expect(notification.sender == nil)
        #expect(notification.content == nil)
        #expect(notification.userIsTarget == false)
    }

    @Test("duplicate keys in content: the first place, the last value (Python's json.loads)")
    func duplicateKeys() throws {
        let notification = try MatrixFixtures.notification(MatrixFixtures.custom(#""content":{"body":"a","msgtype":"m.text","body":"b"}"#))
        let content = try #require(notification.content)
        #expect(BodyValue.object(content).jsonText == #"{"body":"b","msgtype":"m.text"}"#)
    }

    @Test("a body without a notification object is M_BAD_JSON")
    func notificationNotObject() throws {
        for json in [#"{}"#, #"{"notification":[]}"#, #"{"notification":null}"#, #"[1]"#] {
            let body = try JSONBodyParser.parse(json)
            #expect(throws: MatrixRequestError.notificationNotObject) { _ = try MatrixNotification(request: body) }
        }
        #expect(throws: MatrixRequestError.notificationNotObject) { _ = try MatrixNotification(.string("x")) }
        #expect(MatrixRequestError.notificationNotObject.errcode == "M_BAD_JSON")
        #expect(MatrixRequestError.notificationNotObject.status == 400)
    }

    @Test("missing or non-array devices is M_BAD_JSON")
    func devicesNotList() throws {
        for json in [#"{"notification":{"event_id":"$e"}}"#, #"{"notification":{"devices":{}}}"#] {
            let body = try JSONBodyParser.parse(json)
            #expect(throws: MatrixRequestError.devicesNotList) { _ = try MatrixNotification(request: body) }
        }
        #expect(MatrixRequestError.devicesNotList.code == .badJSON)
    }

    @Test("an empty devices array is M_BAD_JSON")
    func noDevices() throws {
        let body = try JSONBodyParser.parse(#"{"notification":{"event_id":"$e","devices":[]}}"#)
        #expect(throws: MatrixRequestError.noDevices) { _ = try MatrixNotification(request: body) }
        #expect(MatrixRequestError.noDevices.errcode == "M_BAD_JSON")
        #expect(MatrixRequestError.noDevices.message == "No devices in notification")
    }

    @Test("a device without a string app_id or pushkey is M_BAD_JSON, with Sygnal's text")
    func badDevice() throws {
        let cases: [(String, String)] = [
            (#"{"pushkey":"k"}"#, "Device with missing or non-string app_id"),
            (#"{"app_id":1,"pushkey":"k"}"#, "Device with missing or non-string app_id"),
            (#"{"app_id":"a"}"#, "Device with missing or non-string pushkey"),
            (#"{"app_id":"a","pushkey":"k","pushkey_ts":"42"}"#, "pushkey_ts is of invalid type"),
            (#"{"app_id":"a","pushkey":"k","data":"x"}"#, "data is of invalid type"),
            (#"{"app_id":"a","pushkey":"k","tweaks":{"sound":1}}"#, "sound is of invalid type"),
            (#""k""#, "Device is not an object"),
        ]
        for (device, message) in cases {
            let body = try JSONBodyParser.parse(MatrixFixtures.custom(#""event_id":"$e""#, device: device))
            #expect(throws: MatrixRequestError.invalidField(message)) { _ = try MatrixNotification(request: body) }
        }
        #expect(MatrixRequestError.invalidField("x").errcode == "M_BAD_JSON")
    }

    @Test("counts must be integers; null reads as absent")
    func counts() throws {
        let body = try JSONBodyParser.parse(MatrixFixtures.custom(#""counts":{"unread":"2"}"#))
        #expect(throws: MatrixRequestError.invalidField("unread is of invalid type")) { _ = try MatrixNotification(request: body) }
        let fraction = try JSONBodyParser.parse(MatrixFixtures.custom(#""counts":{"missed_calls":1.5}"#))
        let missedCallsError = MatrixRequestError.invalidField("missed_calls is of invalid type")
        #expect(throws: missedCallsError) { _ = try MatrixNotification(request: fraction) }
        let notCounts = try JSONBodyParser.parse(MatrixFixtures.custom(#""counts":[]"#))
        #expect(throws: MatrixRequestError.invalidField("counts is of invalid type")) { _ = try MatrixNotification(request: notCounts) }
        let nulls = try MatrixFixtures.notification(MatrixFixtures.custom(#""counts":{"unread":null,"missed_calls":0}"#))
        #expect(nulls.unread == nil)
        #expect(nulls.missedCalls == 0)
    }

    @Test("the other error codes and their statuses")
    func otherErrors() {
        #expect(MatrixRequestError.notJSON.errcode == "M_NOT_JSON")
        #expect(MatrixRequestError.notJSON.status == 400)
        #expect(MatrixRequestError.tooLarge(limitBytes: 524_288).errcode == "M_TOO_LARGE")
        #expect(MatrixRequestError.tooLarge(limitBytes: 524_288).status == 413)
        #expect(MatrixRequestError.unrecognized(method: "GET").errcode == "M_UNRECOGNIZED")
        #expect(MatrixRequestError.unrecognized(method: "GET").status == 405)
        #expect(MatrixRequestError.noDevices != MatrixRequestError.devicesNotList)
    }
}
