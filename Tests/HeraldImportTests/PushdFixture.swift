import Foundation
import HeraldCore
import HeraldImport
import HeraldRedis

/// The rs/pushd database every import test reads: good subscribers of several kinds and a
/// sample of every broken record the import must survive, with what Herald should hold after it.
struct PushdFixture {
    /// A subscriber as Herald should serve it afterwards.
    struct Expected {
        var id: String
        var proto: String
        var storedToken: String
        var fields: [String: String]
        var subscriptions: [String: Bool]
    }

    /// Good subscribers, by id.
    var expected: [Expected] = []
    /// Ids that must not be imported, with the reason.
    var skipped: [String: PushdSkipReason] = [:]
    /// The APNs token a Herald subscriber holds before the import (`heldInHerald`).
    static let heldToken = String(repeating: "ab", count: 32)
    /// The pushd id that wants ``heldToken``.
    static let heldID = "HeldByHerld"

    /// The providers configured for the library import.
    static let providerKinds = ["apns": "apns", "android": "fcm", "http": "http"]

    /// Writes the database.
    static func build(on redis: RedisConnection, goodCount: Int = 60) async throws -> PushdFixture {
        var fixture = PushdFixture()
        var db = PushdDatabase(redis: redis)
        for n in 0..<goodCount {
            let id = Self.id(n)
            var fields: [String: String]
            switch n % 3 {
            case 0:
                // rs/pushd kept APNs tokens as the app sent them; Herald stores them lower-cased.
                let token = String(format: "%064X", n * 7919 + 0xABCDEF)
                fields = ["proto": "apns", "token": token, "lang": n % 2 == 0 ? "fr" : "en", "badge": String(n % 9)]
            case 1:
                fields = ["proto": "android", "token": "fcm-token-\(n)-APA91b", "lang": "de", "version": "4.4", "category": "c\(n)"]
            default:
                fields = ["proto": "http", "token": "http://127.0.0.1:9/hook/\(n)", "contentAvailable": "true", "badge": "007"]
            }
            fields["created"] = String(1_330_000_000 + n)
            fields["updated"] = String(1_340_000_000 + n)
            var events: [(String, Int)] = [("sport", n % 2), ("all", 0)]
            if n % 5 == 0 { events.append(("news:\(n % 2)", 1)) }
            db.subscriber(id, fields, events: events)
            var stored = fields
            stored.removeValue(forKey: "proto")
            stored.removeValue(forKey: "token")
            let token = fields["proto"] == "apns" ? fields["token"]!.lowercased() : fields["token"]!
            fixture.expected.append(Expected(
                id: id, proto: fields["proto"]!, storedToken: token, fields: stored,
                subscriptions: Dictionary(uniqueKeysWithValues: events.map { ($0.0, $0.1 & 1 != 0) })))
        }
        // A proto no provider is configured for: imported all the same, and reported.
        db.subscriber("OldWinPhone", ["proto": "mpns", "token": "http://db3.notify.live.net/x", "created": "1320000000", "updated": "1320000000"],
                      events: [("all", 0)])
        fixture.expected.append(Expected(
            id: "OldWinPhone", proto: "mpns", storedToken: "http://db3.notify.live.net/x",
            fields: ["created": "1320000000", "updated": "1320000000"], subscriptions: ["all": false]))
        // One bad subscription among good ones: the subscriber is imported without it.
        db.subscriber("BadEventSub", ["proto": "http", "token": "http://127.0.0.1:9/bad-event", "created": "1320000001"],
                      events: [("all", 1)])
        db.raw(["ZADD", "subscriber:BadEventSub:evts", "0", "not a valid name!"])
        fixture.expected.append(Expected(
            id: "BadEventSub", proto: "http", storedToken: "http://127.0.0.1:9/bad-event",
            fields: ["created": "1320000001", "updated": "1320000001"], subscriptions: ["all": true]))

        // Its subscriptions key is not a sorted set: the subscriber is imported without subscriptions.
        db.subscriber("EvtsWrong01", ["proto": "http", "token": "http://127.0.0.1:9/evts", "created": "1320000002", "updated": "1320000003"])
        db.raw(["SET", "subscriber:EvtsWrong01:evts", "not a sorted set"])
        fixture.expected.append(Expected(
            id: "EvtsWrong01", proto: "http", storedToken: "http://127.0.0.1:9/evts",
            fields: ["created": "1320000002", "updated": "1320000003"], subscriptions: [:]))
        // An event key that is neither a hash nor a `:subs` sorted set.
        db.raw(["SET", "event:strange", "not a hash"])

        // Broken records: each is skipped and counted; none stops the import.
        db.subscriber("NoProto0001", ["token": "t1", "created": "1320000000", "updated": "1320000000"], events: [("all", 0)])
        fixture.skipped["NoProto0001"] = .missingProto
        db.subscriber("NoToken0001", ["proto": "http", "created": "1320000000", "updated": "1320000000"])
        fixture.skipped["NoToken0001"] = .missingToken
        db.subscriber("BadCreated1", ["proto": "http", "token": "http://127.0.0.1:9/c", "created": "yesterday", "updated": "1"])
        fixture.skipped["BadCreated1"] = .malformedCreated
        db.subscriber("BadUpdated1", ["proto": "http", "token": "http://127.0.0.1:9/u", "created": "1320000000", "updated": "12.5"])
        fixture.skipped["BadUpdated1"] = .malformedUpdated
        db.subscriber("Dangling001", [:], events: [])
        fixture.skipped["Dangling001"] = .missingHash
        db.raw(["ZADD", "subscribers", "0", "WrongType01"])
        db.raw(["SET", "subscriber:WrongType01", "not a hash"])
        fixture.skipped["WrongType01"] = .notAHash
        db.subscriber("bad/id.1234", ["proto": "http", "token": "http://127.0.0.1:9/slash", "created": "1320000000", "updated": "1320000000"])
        fixture.skipped["bad/id.1234"] = .invalidID
        // A second pushd subscriber of a token `tokenmap` gives to the first good one.
        db.subscriber("DupLoser001", ["proto": "apns", "token": String(format: "%064X", 0 * 7919 + 0xABCDEF), "created": "1320000000"],
                      events: [("dup-only", 0)], tokenmap: false)
        fixture.skipped["DupLoser001"] = .duplicateToken
        // A token a Herald subscriber (another id) holds already.
        db.subscriber(Self.heldID, ["proto": "apns", "token": heldToken.uppercased(), "created": "1320000000", "updated": "1320000000"],
                      events: [("held-only", 0)])
        fixture.skipped[Self.heldID] = .heldInHerald

        // Statistics: of subscribed events, of an event nobody is subscribed to, of the special names, and a malformed one.
        db.statistics("sport", ["created": "1300000000", "total": "154", "last": "1334099001"])
        db.statistics("forgotten", ["created": "1300000000", "total": "3", "last": "1300000100"])
        db.statistics("broadcast", ["created": "1310000000", "total": "2", "last": "1320000000"])
        db.statistics("unicast:\(Self.id(1))", ["created": "1311000000", "total": "1", "last": "1311000000"])
        db.statistics("unicast:NoSuchSubscr", ["created": "1311000000", "total": "1", "last": "1311000000"])
        db.statistics("all", ["created": "soon"])
        try await db.flush()
        return fixture
    }

    /// The id of good subscriber `n`: 11 characters, as rs/pushd drew them.
    static func id(_ n: Int) -> String {
        let digits = String(n)
        return "Pushd" + String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// How many subscribers each event should have.
    var subscriberCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for subscriber in expected {
            for event in subscriber.subscriptions.keys { counts[event, default: 0] += 1 }
        }
        return counts
    }

    /// The JSON value Herald writes for a stored text (§3.1: canonical integers become numbers).
    static func typed(_ text: String) -> Any {
        if let value = Int64(text), String(value) == text, abs(value) <= (1 << 53) - 1 { return NSNumber(value: value) }
        return text
    }
}
