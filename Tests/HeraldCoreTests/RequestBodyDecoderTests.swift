import HeraldCore
import Testing

@Suite("RequestBodyDecoder")
struct RequestBodyDecoderTests {
    private func decode(_ body: String, _ contentType: String?) throws(BodyDecodingError) -> BodyValue {
        try RequestBodyDecoder.decode(Array(body.utf8), contentType: contentType)
    }

    @Test("JSON bodies, whatever the case and parameters", arguments: [
        "application/json", "application/json; charset=utf-8", "Application/JSON", " application/json ;charset=UTF-8", "APPLICATION/JSON;",
    ])
    func jsonBody(_ contentType: String) throws {
        #expect(try decode(#"{"msg":"hi","badge":5}"#, contentType) == object(("msg", .string("hi")), ("badge", .number("5"))))
    }

    @Test("form bodies, whatever the case and parameters", arguments: [
        "application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=UTF-8", "Application/X-WWW-Form-Urlencoded",
    ])
    func formBody(_ contentType: String) throws {
        #expect(try decode("msg=hi&badge=5", contentType) == object(("msg", .string("hi")), ("badge", .string("5"))))
    }

    @Test("other or no content types read as an empty body", arguments: [
        nil, "text/plain", "application/xml", "multipart/form-data; boundary=x", "application/jsonx", "application/vnd.api+json", "",
    ] as [String?])
    func otherTypes(_ contentType: String?) throws {
        #expect(try decode("msg=hi", contentType) == .object([]))
        #expect(try decode(#"{"msg":"hi"}"#, contentType) == .object([]))
    }

    @Test("an empty JSON body is {}")
    func emptyJSON() throws {
        #expect(try decode("", "application/json") == .object([]))
    }

    @Test("malformed JSON or a non-object answers 400 Invalid JSON body", arguments: [
        "[1,2]", #""text""#, "5", "null", "true", "{", #"{"a":1"#, "{'a':1}", "  ", #"{"a":1} trailing"#,
    ])
    func invalidJSON(_ body: String) {
        do {
            _ = try decode(body, "application/json")
            Issue.record("expected an error for \(body)")
        } catch {
            #expect(error == .invalidJSON)
            #expect(error.status == 400)
            #expect(error.message == "Invalid JSON body")
        }
    }

    @Test("too many form parameters answers 413")
    func tooManyParameters() {
        let body = (0...1000).map { "k\($0)=v" }.joined(separator: "&")
        #expect(throws: BodyDecodingError.tooManyParameters) { try decode(body, "application/x-www-form-urlencoded") }
        #expect(BodyDecodingError.tooManyParameters.status == 413)
        #expect(BodyDecodingError.tooManyParameters.message == "Too many parameters")
    }
}
