import Collections
import HeraldCore
import Testing

@Suite("PayloadCompiler")
struct PayloadCompilerTests {
    private func compileForm(_ body: String, event: String = "sport") throws -> PublishedEvent {
        try PayloadCompiler.compile(form(body), event: event)
    }

    private func compileJSON(_ body: String, event: String = "sport") throws -> PublishedEvent {
        try PayloadCompiler.compile(json(body), event: event)
    }

    /// The reason a form payload is refused with, or `nil` when it compiles.
    private func formReason(_ body: String) throws -> String? {
        do {
            _ = try PayloadCompiler.compile(try form(body), event: "sport")
            return nil
        } catch let error as PayloadError {
            return error.reason
        }
    }

    private func jsonReason(_ body: String) throws -> String? {
        do {
            _ = try PayloadCompiler.compile(try json(body), event: "sport")
            return nil
        } catch let error as PayloadError {
            return error.reason
        }
    }

    // MARK: §5.2 validation

    @Test("§5.2 reasons for form payloads", arguments: [
        ("foo=bar", "Invalid field: foo"),
        ("msg=x&foo=bar", "Invalid field: foo"),
        ("msg=x&Title=y", "Invalid field: Title"),
        ("msg=x&titles.fr=y", "Invalid field: titles.fr"),
        ("msg=x&title.=y", "Invalid field: title."),
        ("msg=x&data.=y", "Invalid field: data."),
        ("msg=x&var.=y", "Invalid field: var."),
        ("msg=x&.x=y", "Invalid field: .x"),
        ("msg=x&sound.x=y", "Invalid field: sound.x"),
        ("msg=x&msg=y", "Invalid value for `msg'"),  // repeated keys give a list
        ("msg=x&data[x]=1", "Invalid value for `data'"),  // a[b]=c gives an object
        ("msg[]=x", "Invalid value for `msg'"),
        ("sound=x", "Empty payload"),
        ("var.test=x", "Empty payload"),
        ("category=x", "Empty payload"),
        ("contentAvailable=x", "Empty payload"),
        ("badge=3&incrementBadge=false&sound=s&ttl=5", "Empty payload"),
        ("", "Empty payload"),
        ("sound=x&foo=bar", "Invalid field: foo"),  // the per-key checks come first
        ("foo=bar&msg=${x}", "Invalid field: foo"),
        ("msg=${x}&foo=bar", "Invalid field: foo"),  // templates are checked last
        ("msg=hello ${var.missing}", "The ${var.missing} does not exist"),
        ("msg=${x.y}", "Invalid variable type for ${x.y}"),
        ("title=hello ${var.name}", "The ${var.name} does not exist"),
        ("title.fr=hello ${var.name}", "The ${var.name} does not exist"),
        ("title=hello ${name}&var.name=world", "Invalid variable type for ${name}"),
        ("msg=${a}&title=${b}", "Invalid variable type for ${b}"),  // titles are compiled before messages
        ("msg=ok&msg.de=${var.x}", "The ${var.x} does not exist"),  // any language fails the publish
    ])
    func formReasons(_ body: String, _ reason: String) throws {
        #expect(try formReason(body) == reason)
    }

    @Test("§5.2 reasons for JSON payloads", arguments: [
        (#"{"msg":5}"#, "Invalid value for `msg'"),
        (#"{"msg":true}"#, "Invalid value for `msg'"),
        (#"{"msg":null}"#, "Invalid value for `msg'"),
        (#"{"msg":["a"]}"#, "Invalid value for `msg'"),
        (#"{"msg":{"a":"b"}}"#, "Invalid value for `msg'"),
        (#"{"msg":"x","badge":5}"#, "Invalid value for `badge'"),
        (#"{"msg":"x","data.n":1}"#, "Invalid value for `data.n'"),
        (#"{"":"x"}"#, "Invalid field (empty)"),
        (#"{"msg":"x","":5}"#, "Invalid field (empty)"),
        (#"{"foo":5}"#, "Invalid value for `foo'"),  // the value is checked before the key
        (#"{"foo":"x","msg":5}"#, "Invalid field: foo"),  // body order
        (#"{"msg":5,"foo":"x"}"#, "Invalid value for `msg'"),
        (#"{"msg":"x","msg":5}"#, "Invalid value for `msg'"),  // every occurrence is checked
        (#"{}"#, "Empty payload"),
        (#"{"var.test":"x"}"#, "Empty payload"),
        (#"{"sound":"x"}"#, "Empty payload"),
    ])
    func jsonReasons(_ body: String, _ reason: String) throws {
        #expect(try jsonReason(body) == reason)
    }

    @Test("a body that is not an object is an empty payload", arguments: [
        BodyValue.array([.string("msg")]), .string("msg=x"), .null, .number("1"), .bool(true),
    ])
    func nonObjectBody(_ body: BodyValue) {
        #expect(throws: PayloadError.emptyPayload) { try PayloadCompiler.compile(body, event: "e") }
    }

    @Test("data-only payloads are valid, and empty strings count as keys", arguments: [
        "data.x=1", "title=", "msg=", "data.x=",
    ])
    func minimalPayloads(_ body: String) throws {
        #expect(try formReason(body) == nil)
    }

    // MARK: §5.3 examples

    @Test("§5.3 template examples")
    func templateExamples() throws {
        let withVar = try compileForm("title=hello ${var.name}&var.name=world")
        #expect(withVar.title.translations == ["default": "hello world"])
        #expect(withVar.vars == ["name": "world"])

        let withData = try compileForm("title=hello ${data.name}&data.name=world")
        #expect(withData.title.translations == ["default": "hello world"])
        #expect(withData.data == ["name": "world"])
    }

    @Test("templates see var and data keys given after them, and the event name")
    func templateContext() throws {
        let notification = try compileForm("msg=${event.name}: ${data.a.b} by ${var.who}&data.a.b=goal&var.who=Bob", event: "sport")
        #expect(notification.message.translations == ["default": "sport: goal by Bob"])
        #expect(notification.data == ["a.b": "goal"])
    }

    @Test("data and var values are not templates")
    func valuesAreNotTemplates() throws {
        let notification = try compileForm("msg=x&data.t=${var.none}&var.v=${nothing}")
        #expect(notification.data == ["t": "${var.none}"])
        #expect(notification.vars == ["v": "${nothing}"])
    }

    // MARK: keys and their values

    @Test("the later key wins and keeps the first position")
    func laterKeyWins() throws {
        let notification = try compileForm("title.fr=A&title=B&msg.default=m1&title.default=C&msg=m2")
        #expect(try formReason("data.k=1&data.k=2") == "Invalid value for `data.k'")  // a repeated form key is a list
        #expect(Array(notification.title.translations.keys) == ["fr", "default"])
        #expect(notification.title.translations == ["fr": "A", "default": "C"])
        #expect(notification.message.translations == ["default": "m2"])

        let fromJSON = try compileJSON(#"{"title":"B","title.fr":"A","title.default":"C","data.k":"1","data.j":"x","data.k":"2"}"#)
        #expect(fromJSON.title.translations == ["default": "C", "fr": "A"])
        #expect(Array(fromJSON.title.translations.keys) == ["default", "fr"])
        #expect(fromJSON.data == ["k": "2", "j": "x"])
        #expect(Array(fromJSON.data.keys) == ["k", "j"])
    }

    @Test("the plain scalar keys are kept as given")
    func scalarKeys() throws {
        let notification = try compileForm("msg=x&sound=ping.aiff&badge=10&category=NEWS")
        #expect(notification.event == "sport")
        #expect(notification.sound == "ping.aiff")
        #expect(notification.badge == "10")
        #expect(notification.category == "NEWS")
        #expect(notification.incrementBadge)
        #expect(notification.contentAvailable == nil)
        #expect(notification.ttl == nil)
        #expect(notification.expiration == nil)
        #expect(notification.priority == nil)
        #expect(notification.collapseKey == nil)
        #expect(notification.pushType == nil)
        #expect(notification.vars.isEmpty)
    }

    @Test("incrementBadge is off only for \"false\"", arguments: [
        ("", true), ("false", false), ("0", true), ("FALSE", true), ("no", true), ("true", true),
    ])
    func incrementBadge(_ value: String, _ expected: Bool) throws {
        #expect(try compileForm("msg=x&incrementBadge=\(value)").incrementBadge == expected)
    }

    @Test("contentAvailable is false only for \"false\"", arguments: [
        ("", true), ("false", false), ("0", true), ("1", true), ("x", true), ("False", true),
    ])
    func contentAvailable(_ value: String, _ expected: Bool) throws {
        #expect(try compileForm("msg=x&contentAvailable=\(value)").contentAvailable == expected)
    }

    @Test("the last incrementBadge wins")
    func lastIncrementBadgeWins() throws {
        #expect(try compileJSON(#"{"msg":"x","incrementBadge":"false","incrementBadge":"yes"}"#).incrementBadge)
    }

    // MARK: Herald extension keys

    @Test("valid extension values")
    func validExtensions() throws {
        let notification = try compileForm("msg=x&ttl=3600&expiration=1700000000&priority=normal&collapseKey=score&pushType=background")
        #expect(notification.ttl == 3600)
        #expect(notification.expiration == 1_700_000_000)
        #expect(notification.priority == .normal)
        #expect(notification.collapseKey == "score")
        #expect(notification.pushType == "background")
        #expect(try compileForm("msg=x&ttl=0").ttl == 0)
        #expect(try compileForm("msg=x&ttl=007").ttl == 7)
        #expect(try compileForm("msg=x&expiration=-5").expiration == -5)
        #expect(try compileForm("msg=x&priority=high").priority == .high)
        #expect(try compileForm("msg=x&collapseKey=").collapseKey == nil)
    }

    @Test("every APNs push type is accepted", arguments: [
        "alert", "background", "voip", "complication", "fileprovider", "mdm", "liveactivity", "location", "pushtotalk", "widgets", "controls",
    ])
    func pushTypes(_ pushType: String) throws {
        #expect(try compileForm("msg=x&pushType=\(pushType)").pushType == pushType)
    }

    @Test("invalid extension values", arguments: [
        ("ttl", "-1"), ("ttl", "1.5"), ("ttl", ""), ("ttl", "abc"), ("ttl", "+5"), ("ttl", " 5"), ("ttl", "5s"),
        ("ttl", "99999999999999999999"), ("expiration", "x"), ("expiration", "1.0"), ("expiration", ""),
        ("expiration", "--1"), ("expiration", "99999999999999999999"), ("priority", "HIGH"), ("priority", ""),
        ("priority", "low"), ("priority", "10"), ("pushType", "Alert"), ("pushType", ""), ("pushType", "banner"),
        ("collapseKey", String(repeating: "k", count: 65)), ("collapseKey", String(repeating: "é", count: 33)),
    ])
    func invalidExtensions(_ key: String, _ value: String) throws {
        #expect(try jsonReason(#"{"msg":"x",\#(JSONWriter.quoted(key)):\#(JSONWriter.quoted(value))}"#) == "Invalid value for `\(key)'")
    }

    @Test("collapseKey is limited in bytes, not characters")
    func collapseKeyBytes() throws {
        #expect(try compileJSON(#"{"msg":"x","collapseKey":"\#(String(repeating: "k", count: 64))"}"#).collapseKey?.utf8.count == 64)
        #expect(try compileJSON(#"{"msg":"x","collapseKey":"\#(String(repeating: "é", count: 32))"}"#).collapseKey?.utf8.count == 64)
    }

    // MARK: whole examples

    @Test("§16 item 17: the webhook body")
    func webhookExample() throws {
        let notification = try compileForm("title=T&title.fr=TF&msg=hello ${var.name}&var.name=Bob&data.x=1", event: "sport")
        #expect(notification.eventJSON(includeText: true)
            == #"{"event":"sport","title":{"default":"T","fr":"TF"},"message":{"default":"hello Bob"},"data":{"x":"1"}}"#)
        #expect(notification.eventJSON(includeText: false) == #"{"event":"sport","data":{"x":"1"}}"#)
        #expect(notification.vars == ["name": "Bob"])
    }

    @Test("§16 item 20: the /test payload")
    func testPayloadExample() throws {
        let notification = try compileJSON(#"{"msg":"Test","data.test":"ok"}"#, event: "test")
        #expect(notification.eventJSON(includeText: true) == #"{"event":"test","title":{},"message":{"default":"Test"},"data":{"test":"ok"}}"#)
    }

    @Test("§12.1: the SSE example")
    func sseExample() throws {
        let notification = try compileForm("msg=hi ${var.n}&var.n=Bob", event: "e2")
        #expect(notification.eventJSON(includeText: true) == #"{"event":"e2","title":{},"message":{"default":"hi Bob"},"data":{}}"#)
    }

    @Test("§13.1: the UDP example query")
    func udpExample() throws {
        let query = "msg=%24%7Bvar.name%7D+sent+a+new+video&data.user_id=fkwhpd&var.name=John"
        let notification = try PayloadCompiler.compile(FormBodyDecoder.decode(query.utf8), event: "user.newVideo:fkwhpd")
        #expect(notification.message.translations == ["default": "John sent a new video"])
        #expect(notification.data == ["user_id": "fkwhpd"])
    }
}
