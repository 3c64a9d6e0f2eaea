import HeraldCore

@testable import HeraldCompatMatrix

/// Requests and devices shared by the Matrix tests, taken from Sygnal's own tests so that Herald is
/// held to the payloads Sygnal's users have (`tests/testutils.py`, `tests/test_apns.py`, `tests/test_gcm.py`).
enum MatrixFixtures {
    /// Sygnal's `DEVICE_EXAMPLE` (`tests/test_apns.py`).
    static let device = #"{"app_id":"com.example.apns","pushkey":"spqr","pushkey_ts":42}"#

    /// Sygnal's `DEVICE_EXAMPLE_WITH_DEFAULT_PAYLOAD` (`tests/test_apns.py`, `tests/test_gcm.py`).
    static let deviceWithDefaultPayload = #"""
        {"app_id":"com.example.apns","pushkey":"spqr","pushkey_ts":42,
         "data":{"default_payload":{"aps":{"mutable-content":1,"alert":{"loc-key":"SINGLE_UNREAD","loc-args":[]}}}}}
        """#

    /// Sygnal's `DEVICE_EXAMPLE_WITH_BAD_DEFAULT_PAYLOAD`: a `default_payload` that is not an object.
    static let deviceWithBadDefaultPayload =
        #"{"app_id":"com.example.apns","pushkey":"badpayload","pushkey_ts":42,"data":{"default_payload":null}}"#

    /// The room id of Sygnal's dummy notification.
    static let roomID = "!slw48wfj34rtnrf:example.com"
    /// The event id of Sygnal's dummy notification.
    static let eventID = "$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs"
    /// The message body of Sygnal's dummy notification.
    static let body = "I'm floating in a most peculiar way."

    /// Sygnal's `_make_dummy_notification` (`tests/testutils.py`) with `device` as its one device.
    static func message(device: String = MatrixFixtures.device) -> String {
        #"""
        {"notification":{"id":"$3957tyerfgewrf384","room_id":"!slw48wfj34rtnrf:example.com",
         "event_id":"$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs","type":"m.room.message",
         "sender":"@exampleuser:matrix.org","sender_display_name":"Major Tom","room_name":"Mission Control",
         "room_alias":"#exampleroom:matrix.org","prio":"high",
         "content":{"msgtype":"m.text","body":"I'm floating in a most peculiar way.","other":1},
         "counts":{"unread":2,"missed_calls":1},"devices":[\#(device)]}}
        """#
    }

    /// Sygnal's `_make_dummy_notification_event_id_only`.
    static func eventIDOnly(device: String = MatrixFixtures.device) -> String {
        #"""
        {"notification":{"room_id":"!slw48wfj34rtnrf:example.com","event_id":"$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs",
         "counts":{"unread":2},"devices":[\#(device)]}}
        """#
    }

    /// Sygnal's `_make_dummy_notification_badge_only`: what Synapse sends when only the counts changed.
    static func badgeOnly(device: String = MatrixFixtures.device) -> String {
        #"{"notification":{"id":"","type":null,"sender":"","counts":{"unread":2},"devices":[\#(device)]}}"#
    }

    /// A notification with the given fields (JSON members, without braces) and `device`.
    static func custom(_ members: String, device: String = MatrixFixtures.device) -> String {
        #"{"notification":{\#(members),"devices":[\#(device)]}}"#
    }

    /// Parses `json` as a whole request and reads its notification.
    static func notification(_ json: String) throws -> MatrixNotification {
        try MatrixNotification(request: JSONBodyParser.parse(json))
    }

    /// The notification of `json` with its first device.
    static func notificationAndDevice(_ json: String) throws -> (MatrixNotification, MatrixDevice) {
        let parsed = try notification(json)
        return (parsed, parsed.devices[0])
    }
}
