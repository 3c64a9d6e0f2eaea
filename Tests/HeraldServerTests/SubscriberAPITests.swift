import Foundation
import HeraldTestSupport
import Testing

/// The subscriber and subscription routes (§4.2–4.12), acceptance sequences 1–11, 14 and 19 of §16.
@Suite struct SubscriberAPITests {
    let hook = "http://127.0.0.1:9/hook"

    @Test func registrationIsIdempotentAndAnswersTheStoredSubscriber() async throws {
        try await withHerald { herald in
            let first = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded(hook))&lang=fr&badge=0")
            #expect(first.status == 201)
            #expect(first.header("Content-Type") == "application/json; charset=utf-8")
            let object = try #require(try Fixtures.json(first.body) as? [String: Any])
            let id = try #require(object["id"] as? String)
            #expect(id.range(of: "^[A-Za-z0-9_-]{11}$", options: .regularExpression) != nil)
            #expect(first.header("Location") == "/subscriber/\(id)")
            #expect(object["badge"] as? Int == 0)
            #expect(object["lang"] as? String == "fr")
            // Keys in the documented order.
            #expect(first.body.hasPrefix(#"{"proto":"http","token":"\#(hook)","lang":"fr","badge":0,"created":"#))
            #expect(first.body.hasSuffix(#","id":"\#(id)"}"#))

            let second = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded(hook))&lang=en")
            #expect(second.status == 200)
            let again = try #require(try Fixtures.json(second.body) as? [String: Any])
            #expect(again["id"] as? String == id)
            #expect(again["lang"] as? String == "en")
            #expect(again["badge"] as? Int == 0, "fields not given are kept")
            #expect(again["created"] as? Int == object["created"] as? Int)
        }
    }

    @Test func registrationErrors() async throws {
        try await withHerald { herald in
            let badToken = try await herald.request(.POST, "/subscribers", form: "proto=http&token=not-a-url")
            #expect(badToken.status == 400)
            #expect(badToken.body == #"{"error":"Invalid value for `token'"}"#)
            let longURL = "http://127.0.0.1:9/" + String(repeating: "a", count: 4096)
            let tooLong = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded(longURL))")
            #expect(tooLong.body == #"{"error":"Invalid value for `token'"}"#)
            #expect(try await herald.application.store.counts().subscribers == 0)
            let badProto = try await herald.request(.POST, "/subscribers", form: "proto=nope&token=\(Fixtures.formEncoded(hook))")
            #expect(badProto.body == #"{"error":"Invalid value for `proto'"}"#)
            let empty = try await herald.request(.POST, "/subscribers", form: "")
            #expect(empty.status == 400)
            #expect(empty.body == #"{"error":"Invalid value for `proto'"}"#)
            let objectValue = try await herald.request(.POST, "/subscribers", json: #"{"proto":"http","token":"\#(hook)","lang":{"a":1}}"#)
            #expect(objectValue.body == #"{"error":"Invalid value for `lang'"}"#)
            let nul = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded(hook))&category=a%00b")
            #expect(nul.status == 400)
            #expect(nul.body == #"{"error":"Invalid value for `category'"}"#)
            let badJSON = try await herald.request(.POST, "/subscribers", json: #"{"proto":"#)
            #expect(badJSON.status == 400)
            #expect(badJSON.body == #"{"error":"Invalid JSON body"}"#)
            #expect(try await herald.application.store.counts().subscribers == 0)
        }
    }

    @Test func getUpdateAndDeleteASubscriber() async throws {
        try await withHerald { herald in
            let id = try await Fixtures.register(herald, url: hook)
            let get = try await herald.request(.GET, "/subscriber/\(id)")
            #expect(get.status == 200)
            let object = try #require(try Fixtures.json(get.body) as? [String: Any])
            #expect(Set(object.keys) == ["proto", "token", "created", "updated"])

            #expect(try await herald.request(.POST, "/subscriber/\(id)", form: "lang=us&badge=5").status == 204)
            let updated = try #require(try Fixtures.json(try await herald.request(.GET, "/subscriber/\(id)").body) as? [String: Any])
            #expect(updated["lang"] as? String == "us")
            #expect(updated["badge"] as? Int == 5)
            #expect((updated["updated"] as? Int ?? 0) >= (object["updated"] as? Int ?? .max))

            #expect(try await herald.request(.POST, "/subscriber/invalidid", form: "lang=us").status == 404)
            let token = try await herald.request(.POST, "/subscriber/\(id)", form: "token=x")
            #expect(token.body == "{\"error\":\"Can't modify `token` field\"}")
            let proto = try await herald.request(.POST, "/subscriber/\(id)", form: "proto=x")
            #expect(proto.body == "{\"error\":\"Can't modify `proto` field\"}")

            #expect(try await herald.request(.DELETE, "/subscriber/\(id)").status == 204)
            let gone = try await herald.request(.DELETE, "/subscriber/\(id)")
            #expect(gone.status == 404)
            #expect(gone.body == "Not Found")
            let missing = try await herald.request(.GET, "/subscriber/\(id)")
            #expect(missing.status == 404)
            #expect(missing.body == "null")
            #expect(try await herald.application.store.counts() == .init(subscribers: 0, subscriptions: 0, events: 0, jobs: 0, retries: 0))
        }
    }

    @Test func singleSubscriptions() async throws {
        try await withHerald { herald in
            let id = try await Fixtures.register(herald, url: hook)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions").body == "{}")
            #expect(try await herald.request(.GET, "/subscriber/invalidid/subscriptions").status == 404)

            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/unit-test1").status == 201)
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/unit-test1").status == 204)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions").body == #"{"unit-test1":{"ignore_message":false}}"#)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions/unit-test1").body == #"{"ignore_message":false}"#)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions/unit-test2").status == 404)

            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/sport", form: "ignore_message=1").status == 201)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions/sport").body == #"{"ignore_message":true}"#)
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/sport", form: "ignore_message=true").status == 204)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions/sport").body == #"{"ignore_message":true}"#)
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/sport", form: "ignore_message=0").status == 204)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions/sport").body == #"{"ignore_message":false}"#)
            let maybe = try await herald.request(.POST, "/subscriber/\(id)/subscriptions/sport", form: "ignore_message=maybe")
            #expect(maybe.body == #"{"error":"Invalid value for `ignore_message'"}"#)

            #expect(try await herald.request(.POST, "/subscriber/invalidid/subscriptions/unit-test9").status == 404)
            #expect(try await herald.request(.GET, "/event/unit-test9").body == "null")

            #expect(try await herald.request(.DELETE, "/subscriber/\(id)/subscriptions/unit-test1").status == 204)
            #expect(try await herald.request(.GET, "/event/unit-test1").status == 404, "emptied events are deleted at once")
            #expect(try await herald.request(.GET, "/events").body == #"["sport"]"#)
            #expect(try await herald.request(.DELETE, "/subscriber/\(id)/subscriptions/unit-test1").status == 204)
            #expect(try await herald.request(.DELETE, "/subscriber/invalidid/subscriptions/unit-test1").status == 404)

            let bad = try await herald.request(.POST, "/subscriber/\(id)/subscriptions/bad%20name")
            #expect(bad.status == 400)
            #expect(bad.body == #"{"error":"Invalid event name bad name"}"#)
            let long = String(repeating: "a", count: 101)
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/\(long)").status == 400)
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/user@x:1.y_z-").status == 201)
        }
    }

    @Test func bulkSubscriptionsReplaceTheWholeSet() async throws {
        try await withHerald { herald in
            let id = try await Fixtures.register(herald, url: hook)
            let set = try await herald.request(.POST, "/subscriber/\(id)/subscriptions", json: #"{"sport":{},"music":{"ignore_message":true}}"#)
            #expect(set.status == 204)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions").body == #"{"music":{"ignore_message":true},"sport":{"ignore_message":false}}"#)
            #expect(try await herald.request(.GET, "/events").body == #"["music","sport"]"#)

            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions", json: #"{"sport":{}}"#).status == 204)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions").body == #"{"sport":{"ignore_message":false}}"#)
            #expect(try await herald.request(.GET, "/event/music").status == 404)

            let bad = try await herald.request(.POST, "/subscriber/\(id)/subscriptions", json: #"{"ok":{},"bad name":{}}"#)
            #expect(bad.body == #"{"error":"Invalid event name bad name"}"#)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions").body == #"{"sport":{"ignore_message":false}}"#, "nothing changed")
            let badOption = try await herald.request(.POST, "/subscriber/\(id)/subscriptions", json: #"{"x":{"ignore_message":"maybe"}}"#)
            #expect(badOption.body == #"{"error":"Invalid value for `ignore_message'"}"#)
            #expect(try await herald.request(.POST, "/subscriber/nobody/subscriptions", json: #"{"sport":{}}"#).status == 404)
            let form = try await herald.request(.POST, "/subscriber/\(id)/subscriptions", form: "news[ignore_message]=1&sport=")
            #expect(form.status == 204)
            #expect(try await herald.request(.GET, "/subscriber/\(id)/subscriptions").body == #"{"news":{"ignore_message":true},"sport":{"ignore_message":false}}"#)

            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions", json: "{}").status == 204)
            #expect(try await herald.request(.GET, "/events").body == "[]")
            #expect(try await herald.request(.DELETE, "/subscriber/\(id)").status == 204)
            #expect(try await herald.application.store.counts() == .init(subscribers: 0, subscriptions: 0, events: 0, jobs: 0, retries: 0))
        }
    }

    @Test func unknownRoutesAndTrailingSlashes() async throws {
        try await withHerald { herald in
            let unknown = try await herald.request(.GET, "/nope")
            #expect(unknown.status == 404)
            #expect(unknown.body == "Not Found")
            #expect(try await herald.request(.GET, "/status/").status == 204)
            #expect(try await herald.request(.GET, "/events/").body == "[]")
            let crossdomain = try await herald.request(.GET, "/crossdomain.xml")
            #expect(crossdomain.header("Content-Type") == "application/xml")
            #expect(crossdomain.body.hasPrefix(#"<?xml version="1.0"?><!DOCTYPE cross-domain-policy"#))
        }
    }
}
