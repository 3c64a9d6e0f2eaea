import HeraldCore
import Testing

@testable import HeraldCompatMatrix

/// Sygnal's Web Push message (compat.md §8.6, `webpushpushkin.py`'s `_build_payload`).
@Suite("Matrix: the Web Push message")
struct MatrixWebPushPayloadTests {
    static let device = #"{"app_id":"im.example.web","pushkey":"p256","data":{"endpoint":"https://push.example/x","auth":"au","default_payload":{"k":"v","room_id":"old"}}}"#

    func payload(_ json: String, ttl: Int = 900, eventsOnly: Bool = false, onlyLastPerRoom: Bool = false) throws -> PreparedPayload? {
        let notification = try MatrixFixtures.notification(json)
        return MatrixWebPushPayload.payload(
            for: notification, device: notification.devices[0], ttl: ttl, eventsOnly: eventsOnly, onlyLastPerRoom: onlyLastPerRoom)
    }

    @Test func defaultPayloadThenTheGivenFieldsThenCountsAndContent() throws {
        let json = MatrixFixtures.custom(
            #""room_id":"!r","event_id":"$e","type":"m.room.message","sender":"@a:x","room_name":"","user_is_target":false,"counts":{"unread":0},"content":{"body":"hi","formatted_body":"<b>hi</b>"}"#,
            device: Self.device)
        let sent = try #require(try payload(json))
        #expect(sent.body == #"{"k":"v","room_id":"!r","event_id":"$e","sender":"@a:x","type":"m.room.message","unread":0,"content":{"body":"hi"}}"#)
        #expect(sent.headers == ["ttl": "900", "urgency": "normal"])
    }

    @Test func aLongBodyIsCutToAThousandCharactersAndALongCiphertextLeftOut() throws {
        let long = String(repeating: "é", count: 1200)
        let json = MatrixFixtures.custom(#""event_id":"$e","content":{"body":"\#(long)","ciphertext":"\#(String(repeating: "c", count: 2001))"}"#, device: Self.device)
        let sent = try #require(try payload(json))
        let content = try #require(JSONBodyParser.parse(sent.body)["content"])
        #expect(content["body"] == .string(String(repeating: "é", count: 999) + "…"))
        #expect(content["ciphertext"] == nil)
    }

    @Test func lowPriorityTTLAndOneTopicPerRoom() throws {
        let json = MatrixFixtures.custom(#""event_id":"$e","room_id":"!room:x","prio":"low""#, device: Self.device)
        let sent = try #require(try payload(json, ttl: 60, onlyLastPerRoom: true))
        #expect(sent.headers["urgency"] == "low")
        #expect(sent.headers["ttl"] == "60")
        #expect(sent.headers["topic"] == "!room:x", "the room is the collapse key")
        #expect(try #require(try payload(json, ttl: 60)).headers["topic"] == nil, "without only_last_per_room, none")
    }

    @Test func eventsOnlyDropsABadgeUpdateFromTheAppOrThePusher() throws {
        let badge = MatrixFixtures.custom(#""type":null,"counts":{"unread":1}"#, device: Self.device)
        #expect(try payload(badge, eventsOnly: true) == nil)
        #expect(try payload(badge) != nil)
        let pusher = #"{"app_id":"a","pushkey":"p","data":{"endpoint":"e","auth":"a","events_only":true}}"#
        #expect(try payload(MatrixFixtures.custom(#""type":null,"counts":{"unread":1}"#, device: pusher)) == nil)
    }

    @Test func theSubscriptionNeedsTheEndpointAndAuth() throws {
        let complete = try MatrixDevice(JSONBodyParser.parse(Self.device))
        #expect(MatrixWebPushPayload.subscription(for: complete) == #"{"endpoint":"https://push.example/x","keys":{"p256dh":"p256","auth":"au"}}"#)
        let noAuth = try MatrixDevice(JSONBodyParser.parse(#"{"app_id":"a","pushkey":"p","data":{"endpoint":"e"}}"#))
        #expect(MatrixWebPushPayload.subscription(for: noAuth) == nil)
    }
}
