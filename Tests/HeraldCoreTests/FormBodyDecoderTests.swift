import HeraldCore
import Testing

@Suite("FormBodyDecoder")
struct FormBodyDecoderTests {
    @Test("flat keys in body order; dots are not special")
    func flatKeys() throws {
        #expect(try form("proto=apns&token=AB&data.x=1&title.fr=Bonjour")
            == object(("proto", .string("apns")), ("token", .string("AB")), ("data.x", .string("1")), ("title.fr", .string("Bonjour"))))
    }

    @Test("an empty body is an empty object")
    func emptyBody() throws {
        #expect(try form("") == .object([]))
        #expect(try FormBodyDecoder.decode([UInt8]()) == .object([]))
    }

    @Test("components are decoded", arguments: [
        ("msg=hello+world", "hello world"),
        ("msg=a%2Bb", "a+b"),
        ("msg=%C3%A9t%C3%A9", "été"),
        ("msg=%e2%82%ac", "€"),
        ("msg=%24%7Bvar.name%7D+sent", "${var.name} sent"),
        ("msg=${var.name}", "${var.name}"),
        ("msg=a=b", "a=b"),
        ("msg=", ""),
        ("msg", ""),
        ("msg=100%", "100%"),  // qs keeps a component whose escapes fail, whole
        ("msg=%ZZ%41", "%ZZ%41"),
        ("msg=%E9+x", "%E9 x"),  // not UTF-8: literal, but `+` still a space
        ("msg=%ED%A0%80", "%ED%A0%80"),  // an encoded surrogate is not UTF-8
        ("msg=%4", "%4"),
        ("msg=é", "é"),
        ("msg=a%26b%3Dc", "a&b=c"),
    ])
    func componentDecoding(_ body: String, _ expected: String) throws {
        #expect(try form(body) == object(("msg", .string(expected))))
    }

    @Test("keys are decoded too, before brackets are read")
    func encodedKeys() throws {
        #expect(try form("my+key=1&a%5Bb%5D=c") == object(("my key", .string("1")), ("a", object(("b", .string("c"))))))
    }

    @Test("decodeComponent is exposed for query strings")
    func decodeComponent() {
        #expect(FormBodyDecoder.decodeComponent("event1+event2%20x") == "event1 event2 x")
        #expect(FormBodyDecoder.decodeComponent("50%") == "50%")
    }

    @Test("brackets build nested objects")
    func nestedObjects() throws {
        #expect(try form("a[b]=c") == object(("a", object(("b", .string("c"))))))
        #expect(try form("a[b][c]=d&a[e]=f")
            == object(("a", object(("b", object(("c", .string("d")))), ("e", .string("f"))))))
        #expect(try form("ignore[x]=1&sport[ignore_message]=1")
            == object(("ignore", object(("x", .string("1")))), ("sport", object(("ignore_message", .string("1"))))))
    }

    @Test("`[]` and repeated keys give arrays at the first position")
    func arrays() throws {
        #expect(try form("a[]=x&a[]=y") == object(("a", .array([.string("x"), .string("y")]))))
        #expect(try form("a[]=x") == object(("a", .array([.string("x")]))))
        #expect(try form("a=1&b=2&a=3") == object(("a", .array([.string("1"), .string("3")])), ("b", .string("2"))))
        #expect(try form("a=1&a=2&a[]=3") == object(("a", .array([.string("1"), .string("2"), .string("3")]))))
        #expect(try form("a[b]=1&a[b]=2") == object(("a", object(("b", .array([.string("1"), .string("2")]))))))
    }

    @Test("indexed keys give arrays in index order, holes removed")
    func indexedArrays() throws {
        #expect(try form("a[0]=x&a[1]=y") == object(("a", .array([.string("x"), .string("y")]))))
        #expect(try form("a[1]=y&a[0]=x") == object(("a", .array([.string("x"), .string("y")]))))
        #expect(try form("a[5]=x") == object(("a", .array([.string("x")]))))
        #expect(try form("a[0][b]=1&a[0][c]=2") == object(("a", .array([object(("b", .string("1")), ("c", .string("2")))]))))
        // Above qs's arrayLimit (100 here) an index is an ordinary key.
        #expect(try form("a[101]=x") == object(("a", object(("101", .string("x"))))))
        #expect(try form("a[01]=x") == object(("a", object(("01", .string("x"))))))
    }

    @Test("mixing plain values and objects follows qs")
    func mixedMerges() throws {
        #expect(try form("a=1&a[b]=2") == object(("a", .array([.string("1"), object(("b", .string("2")))]))))
        #expect(try form("a[b]=2&a=1") == object(("a", object(("b", .string("2")), ("1", .bool(true))))))
        #expect(try form("a[]=1&a[b]=2") == object(("a", object(("0", .string("1")), ("b", .string("2"))))))
    }

    @Test("empty keys and empty parts are dropped")
    func emptyKeys() throws {
        #expect(try form("=x&a=1&&b=2&") == object(("a", .string("1")), ("b", .string("2"))))
    }

    @Test("odd keys", arguments: [
        ("a[x=y]=z", object(("a", object(("x=y", .string("z")))))),
        ("a[b=c", object(("a[b", .string("c")))),
        ("[a]=1", object(("a", .string("1")))),
        ("a[b]c[d]=1", object(("a", object(("b", object(("d", .string("1")))))))),
        ("a[[b]]=1", object(("a[", object(("b", .string("1")))))),
    ])
    func oddKeys(_ body: String, _ expected: BodyValue) throws {
        #expect(try form(body) == expected)
    }

    @Test("keys nested deeper than the limit keep the rest as one key")
    func keyDepthLimit() throws {
        let depth = FormBodyDecoder.maximumKeyDepth + 3
        let key = "a" + (0..<depth).map { "[k\($0)]" }.joined()
        var value = try form(key + "=v")
        var names: [String] = []
        while case .object(let members) = value, let member = members.first {
            names.append(member.key)
            value = member.value
        }
        #expect(value == .string("v"))
        #expect(names.count == FormBodyDecoder.maximumKeyDepth + 2)
        #expect(names.last == "[k32][k33][k34]")
    }

    @Test("1000 parameters are accepted, 1001 are 413")
    func parameterLimit() throws {
        let thousand = (0..<1000).map { "k\($0)=\($0)" }.joined(separator: "&")
        let decoded = try form(thousand)
        #expect(decoded.objectMembers?.count == 1000)
        #expect(decoded.objectMembers?.last?.key == "k999")
        #expect(throws: BodyDecodingError.tooManyParameters) { try form(thousand + "&k1000=x") }
        do {
            _ = try FormBodyDecoder.decode(String(repeating: "&", count: 1000).utf8)
            Issue.record("expected an error")
        } catch {
            #expect(error.status == 413)
            #expect(error.message == "Too many parameters")
        }
    }

    @Test("bytes that are not UTF-8 are replaced, as body-parser decoded them")
    func invalidRawBytes() throws {
        #expect(try FormBodyDecoder.decode([0x61, 0x3D, 0xFF, 0x62]) == object(("a", .string("\u{FFFD}b"))))
    }

    @Test("the UDP query of §13.1 decodes to the payload")
    func udpQuery() throws {
        let query = "msg=%24%7Bvar.name%7D+sent+a+new+video&data.user_id=fkwhpd&var.name=John"
        #expect(try FormBodyDecoder.decode(query.utf8)
            == object(("msg", .string("${var.name} sent a new video")), ("data.user_id", .string("fkwhpd")), ("var.name", .string("John"))))
    }
}
