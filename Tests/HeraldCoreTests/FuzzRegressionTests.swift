// One file, two builds.
//
// * In HeraldCoreTests it is the regression suite: every stored input under FuzzInputs/<target>/
//   (crashes the fuzzers found, and hand-picked tricky seeds) is run through its oracle below.
// * The fuzz package (Fuzz/) links it, through a symbolic link, as its `FuzzOracles` module with
//   `HERALD_FUZZ` defined, and each fuzz target calls the same oracle on every generated input.
//
// So the fuzzers and the tests check exactly the same invariants. The UDP datagram oracle is not
// here: HeraldCoreTests cannot see HeraldServer or CompressNIO (see Fuzz/Sources/FuzzUDPDatagram).

import Foundation
import HeraldCore
import OrderedCollections

#if !HERALD_FUZZ
import Testing
#endif

/// An invariant that an input broke; the fuzz targets trap with it, the tests record it as an issue.
public struct InvariantViolation: Error, CustomStringConvertible {
    /// What went wrong, with the values involved.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The fuzzed parsers, named as their fuzz targets and their FuzzInputs folders are.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `JSONBodyParser`, and `RequestBodyDecoder` for `application/json`.
    case jsonBody = "FuzzJSONBody"
    /// `FormBodyDecoder`, and `RequestBodyDecoder` for `application/x-www-form-urlencoded`.
    case formBody = "FuzzFormBody"
    /// A request body through `RequestBodyDecoder` and `PayloadCompiler`, as `POST /event/:event` does.
    case payload = "FuzzPayload"
    /// The template compiler and renderer.
    case template = "FuzzTemplate"

    /// Runs one input through the parser and checks its invariants.
    ///
    /// Returning (with a value or a typed error) is the first invariant; a trap is a crash.
    public func check(_ input: [UInt8]) throws(InvariantViolation) {
        switch self {
        case .jsonBody: try FuzzOracle.jsonBody(input)
        case .formBody: try FuzzOracle.formBody(input)
        case .payload: try FuzzOracle.payload(input)
        case .template: try FuzzOracle.template(input)
        }
    }
}

/// What must hold for any input, whatever its bytes.
public enum FuzzOracle {
    /// The event name payloads are compiled for.
    static let event = "fuzz"
    /// A fixed "now" for deadlines, so that a failure replays identically.
    static let now: Int64 = 1_700_000_000

    // MARK: - JSON bodies

    /// `JSONBodyParser` on arbitrary bytes.
    ///
    /// * An error points inside the input.
    /// * A parsed value nests no deeper than ``JSONBodyParser/maximumDepth``, and written back
    ///   with `JSONWriter` it parses to the same value; writing that again gives the same bytes.
    /// * The `String` entry point agrees with the bytes one whenever the bytes are UTF-8.
    /// * `RequestBodyDecoder` gives the same object, `{}` for no bytes, and 400 for the rest.
    static func jsonBody(_ input: [UInt8]) throws(InvariantViolation) {
        let parsed = Result { () throws(JSONParseError) -> BodyValue in try JSONBodyParser.parse(input) }
        if let text = utf8String(input) {
            let viaString = Result { () throws(JSONParseError) -> BodyValue in try JSONBodyParser.parse(text) }
            try require(viaString == parsed, "parse(String) gave \(viaString), parse(bytes) gave \(parsed)")
        }
        let viaRequest = Result { () throws(BodyDecodingError) -> BodyValue in
            try RequestBodyDecoder.decode(input, contentType: "Application/JSON; charset=utf-8")
        }
        switch parsed {
        case .failure(let error):
            try require((0...input.count).contains(error.offset), "error offset \(error.offset) outside 0...\(input.count)")
            try require(!error.message.isEmpty, "error without a message")
            let expected: Result<BodyValue, BodyDecodingError> = input.isEmpty ? .success(.object([])) : .failure(.invalidJSON)
            try require(viaRequest == expected, "RequestBodyDecoder gave \(viaRequest) for unparsable JSON")
        case .success(let value):
            try require(depth(of: value) <= JSONBodyParser.maximumDepth, "a value deeper than \(JSONBodyParser.maximumDepth) was accepted")
            try requireJSONRoundTrip(value)
            if case .object = value {
                try require(viaRequest == .success(value), "RequestBodyDecoder gave \(viaRequest) for an object")
            } else {
                try require(viaRequest == .failure(.invalidJSON), "RequestBodyDecoder accepted a non-object: \(viaRequest)")
            }
        }
    }

    // MARK: - Form bodies

    /// `FormBodyDecoder` on arbitrary bytes.
    ///
    /// * It fails only with 413, and exactly when there are ``FormBodyDecoder/parameterLimit`` or more `&`.
    /// * It gives an object of strings, booleans, arrays and objects, with no key twice in an object,
    ///   nested no deeper than ``JSONBodyParser/maximumDepth`` (the key depth limit must bound the
    ///   tree), which `JSONWriter` writes as JSON that parses back to the same value.
    /// * `RequestBodyDecoder` agrees, whatever the case and parameters of the media type.
    /// * `decodeComponent` never lengthens its input, and without `%` only turns `+` into spaces.
    static func formBody(_ input: [UInt8]) throws(InvariantViolation) {
        let ampersands = input.lazy.filter { $0 == UInt8(ascii: "&") }.count
        let decoded = Result { () throws(BodyDecodingError) -> BodyValue in try FormBodyDecoder.decode(input) }
        let viaRequest = Result { () throws(BodyDecodingError) -> BodyValue in
            try RequestBodyDecoder.decode(input, contentType: " application/X-WWW-form-urlencoded ;charset=UTF-8")
        }
        try require(viaRequest == decoded, "RequestBodyDecoder gave \(viaRequest), FormBodyDecoder gave \(decoded)")
        switch decoded {
        case .failure(let error):
            try require(error == .tooManyParameters, "unexpected error \(error)")
            try require(ampersands >= FormBodyDecoder.parameterLimit, "413 with only \(ampersands + 1) parameters")
        case .success(let value):
            try require(ampersands < FormBodyDecoder.parameterLimit, "\(ampersands + 1) parameters were accepted")
            guard case .object = value else { throw InvariantViolation("a form body decoded to a non-object: \(value)") }
            try requireFormShape(value)
            try require(depth(of: value) <= JSONBodyParser.maximumDepth, "a form body nested \(depth(of: value)) levels deep")
            try requireJSONRoundTrip(value)
        }

        let text = String(decoding: input, as: UTF8.self)
        let component = FormBodyDecoder.decodeComponent(text)
        try require(component.utf8.count <= text.utf8.count, "decodeComponent lengthened \(text.debugDescription)")
        if !text.utf8.contains(UInt8(ascii: "%")) {
            // Bytes, not `Character`s: a `+` followed by a combining mark is still a `+` to the decoder.
            let expected = String(decoding: text.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            try require(component == expected, "decodeComponent(\(text.debugDescription)) gave \(component.debugDescription)")
        }
    }

    /// No numbers or nulls (form values are text), and no duplicate keys (`qs` builds JavaScript objects).
    private static func requireFormShape(_ value: BodyValue) throws(InvariantViolation) {
        switch value {
        case .string, .bool: return
        case .number, .null: throw InvariantViolation("a form body produced \(value)")
        case .array(let elements):
            for element in elements { try requireFormShape(element) }
        case .object(let members):
            var keys = Set<String>()
            for member in members {
                try require(keys.insert(member.key).inserted, "key \(member.key.debugDescription) twice in one object")
                try requireFormShape(member.value)
            }
        }
    }

    // MARK: - Payloads

    /// A request body through `RequestBodyDecoder` and `PayloadCompiler`, as `POST /event/:event` does.
    ///
    /// An input starting with `{` is sent as `application/json`, anything else as a form, so that
    /// stored inputs read as the bodies they are. For a compiled event:
    ///
    /// * titles, messages, `data.*` and `var.*` are what the body gave (the later key wins, the
    ///   first position stays), and each text is its template rendered by ``TemplateReference``;
    /// * what the pipeline does with it does not trap: the deadline (which never precedes "now"
    ///   for a `ttl`), the badge arithmetic, the stored `Codable` form (which decodes back to the
    ///   same event), and the webhook/SSE JSON (which parses back to the same texts).
    static func payload(_ input: [UInt8]) throws(InvariantViolation) {
        let contentType = input.first == UInt8(ascii: "{") ? "application/json" : "application/x-www-form-urlencoded"
        // A body that does not decode is answered 400/413 before the compiler runs.
        guard let body = try? RequestBodyDecoder.decode(input, contentType: contentType) else { return }
        let compiled = Result { () throws(PayloadError) -> PublishedEvent in try PayloadCompiler.compile(body, event: event) }
        guard case .success(let notification) = compiled else {
            if case .failure(let error) = compiled { try require(!error.reason.isEmpty, "an error without a reason") }
            return
        }
        try require(notification.event == event, "event \(notification.event.debugDescription)")
        try require(!notification.title.isEmpty || !notification.message.isEmpty || !notification.data.isEmpty, "an empty payload compiled")

        let members = body.objectMembers ?? []
        let data = entries(of: members, prefix: "data", plainKey: nil)
        let vars = entries(of: members, prefix: "var", plainKey: nil)
        try require(notification.data == data, "data \(notification.data), expected \(data)")
        try require(notification.vars == vars, "vars \(notification.vars), expected \(vars)")
        for (prefix, compiledText) in [("title", notification.title), ("msg", notification.message)] {
            let sources = entries(of: members, prefix: prefix, plainKey: prefix)
            try require(Array(compiledText.translations.keys) == Array(sources.keys), "\(prefix) languages \(compiledText.translations.keys), expected \(sources.keys)")
            for (language, source) in sources {
                let expected = TemplateReference.render(source, event: event, data: data, vars: vars)
                try require(expected == .success(compiledText.translations[language] ?? ""), "\(prefix).\(language) compiled to \(compiledText.translations[language].debugDescription), expected \(expected)")
            }
        }

        let deadline = notification.deadline(publishedAt: now)
        if let expiration = notification.expiration {
            try require(deadline == expiration, "deadline \(deadline.debugDescription) for expiration \(expiration)")
        } else if notification.ttl != nil {
            try require(deadline.map { $0 >= now } == true, "deadline \(deadline.debugDescription) before now for ttl \(notification.ttl!)")
        }
        _ = BadgeLogic.badgeToSend(payloadBadge: notification.badge, storedBadge: "41", increment: notification.incrementBadge)
        _ = notification.title.resolve(lang: "fr_CA")
        _ = notification.message.resolve(lang: nil)

        let stored: PublishedEvent
        do {
            stored = try JSONDecoder().decode(PublishedEvent.self, from: JSONEncoder().encode(notification))
        } catch {
            throw InvariantViolation("the stored form does not round-trip: \(error)")
        }
        try require(stored == notification, "stored as \(notification), read back as \(stored)")

        for includeText in [true, false] {
            let json = notification.eventJSON(includeText: includeText)
            var expected: [(key: String, value: BodyValue)] = [("event", .string(event))]
            if includeText {
                expected.append(("title", stringObject(notification.title.translations)))
                expected.append(("message", stringObject(notification.message.translations)))
            }
            expected.append(("data", stringObject(notification.data)))
            let reparsed = Result { () throws(JSONParseError) -> BodyValue in try JSONBodyParser.parse(json) }
            try require(reparsed == .success(.object(expected)), "eventJSON wrote \(json) which reads back as \(reparsed)")
        }
    }

    /// `<prefix>.<name>` entries of a body (and `<plainKey>` as `default`): the later value wins, the first position stays.
    private static func entries(of members: [(key: String, value: BodyValue)], prefix: String, plainKey: String?) -> OrderedDictionary<String, String> {
        var result: OrderedDictionary<String, String> = [:]
        for (key, value) in members {
            guard case .string(let text) = value else { continue }
            if key == plainKey {
                result["default"] = text
            } else if let dot = key.utf8.firstIndex(of: UInt8(ascii: ".")), key[..<dot] == prefix {
                result[String(key[key.utf8.index(after: dot)...])] = text
            }
        }
        return result
    }

    private static func stringObject(_ map: OrderedDictionary<String, String>) -> BodyValue {
        .object(map.map { (key: $0.key, value: .string($0.value)) })
    }

    // MARK: - Templates

    /// The template compiler on arbitrary text (the bytes, repaired to UTF-8).
    ///
    /// With a populated context (whose values contain placeholders, which must not be expanded
    /// again) and an empty one, `Template` renders exactly what ``TemplateReference`` does, and a
    /// template is literal exactly when the reference finds no placeholder.
    static func template(_ input: [UInt8]) throws(InvariantViolation) {
        let source = String(decoding: input, as: UTF8.self)
        let template = Template(source)
        let pieces = TemplateReference.pieces(of: source)
        try require(template.isLiteral == (pieces == nil), "isLiteral is \(template.isLiteral) for \(source.debugDescription)")
        let contexts: [(event: String, data: OrderedDictionary<String, String>, vars: OrderedDictionary<String, String>)] = [
            ("fuzz", ["k": "v", "a.b": "dotted", "": "empty", "loop": "${data.loop}"], ["k": "w", "x": "${var.x}", "é": "accent"]),
            ("", [:], [:]),
        ]
        for context in contexts {
            let rendered = Result { () throws(PayloadError) -> String in try template.render(event: context.event, data: context.data, vars: context.vars) }
            let expected = TemplateReference.render(source, event: context.event, data: context.data, vars: context.vars)
            try require(rendered == expected, "\(source.debugDescription) rendered \(rendered), expected \(expected)")
            if template.isLiteral { try require(rendered == .success(source), "a literal template rendered \(rendered)") }
        }
    }

    // MARK: - Helpers

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantViolation) {
        if !condition { throw InvariantViolation(message()) }
    }

    /// The bytes as a string when they are well-formed UTF-8 (`String(decoding:)` would repair them).
    static func utf8String(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// How many containers deep a value nests (a scalar is 0).
    static func depth(of value: BodyValue) -> Int {
        switch value {
        case .string, .number, .bool, .null: 0
        case .array(let elements): 1 + (elements.map { depth(of: $0) }.max() ?? 0)
        case .object(let members): 1 + (members.map { depth(of: $0.value) }.max() ?? 0)
        }
    }

    /// `value` written with `JSONWriter` parses back to itself, and writing that gives the same bytes.
    static func requireJSONRoundTrip(_ value: BodyValue) throws(InvariantViolation) {
        var writer = JSONWriter()
        writer.value(value)
        let reparsed = Result { () throws(JSONParseError) -> BodyValue in try JSONBodyParser.parse(writer.bytes) }
        guard case .success(let again) = reparsed, again == value else {
            throw InvariantViolation("\(value) was written as \(writer.text.debugDescription), which reads back as \(reparsed)")
        }
        var rewriter = JSONWriter()
        rewriter.value(again)
        try require(rewriter.bytes == writer.bytes, "writing is not stable: \(writer.text.debugDescription) then \(rewriter.text.debugDescription)")
    }
}

/// A deliberately naive model of rs/pushd's template rendering, to compare `Template` with.
///
/// It follows JavaScript's `source.replace(/\$\{(.*?)\}/g, …)` literally, over Unicode scalars:
/// at each position, `${` matches up to the first `}` after it unless a line terminator comes
/// first; otherwise the scan moves on by one. (`Template` works on UTF-8 bytes and skips ahead.)
enum TemplateReference {
    enum Piece: Equatable {
        case literal(String)
        case placeholder(String)
    }

    /// The pieces of `source`, or `nil` when it has no placeholder.
    static func pieces(of source: String) -> [Piece]? {
        let scalars = Array(source.unicodeScalars)
        let count = scalars.count
        // The first `}` and the first line terminator at or after each position (`count` for none).
        var nextClose = [Int](repeating: count, count: count + 1)
        var nextBreak = [Int](repeating: count, count: count + 1)
        for index in stride(from: count - 1, through: 0, by: -1) {
            nextClose[index] = scalars[index] == "}" ? index : nextClose[index + 1]
            nextBreak[index] = ["\n", "\r", "\u{2028}", "\u{2029}"].contains(scalars[index]) ? index : nextBreak[index + 1]
        }
        var pieces: [Piece] = []
        var literal = String.UnicodeScalarView()
        var index = 0
        while index < count {
            if scalars[index] == "$", index + 1 < count, scalars[index + 1] == "{" {
                let close = nextClose[index + 2]
                if close < count, close < nextBreak[index + 2] {
                    if !literal.isEmpty { pieces.append(.literal(String(literal))) }
                    literal = String.UnicodeScalarView()
                    pieces.append(.placeholder(String(String.UnicodeScalarView(scalars[(index + 2)..<close]))))
                    index = close + 1
                    continue
                }
            }
            literal.append(scalars[index])
            index += 1
        }
        guard pieces.contains(where: { if case .placeholder = $0 { true } else { false } }) else { return nil }
        if !literal.isEmpty { pieces.append(.literal(String(literal))) }
        return pieces
    }

    /// The rendered text, or the first placeholder's error, left to right.
    static func render(
        _ source: String, event: String, data: OrderedDictionary<String, String>, vars: OrderedDictionary<String, String>
    ) -> Result<String, PayloadError> {
        guard let pieces = pieces(of: source) else { return .success(source) }
        var result = ""
        for piece in pieces {
            switch piece {
            case .literal(let text):
                result += text
            case .placeholder(let name) where name == "event.name":
                result += event
            case .placeholder(let name):
                // Split at the first "." scalar, as JavaScript's `split` does: not a `Character`,
                // which a combining mark after the dot would make something else.
                guard let dot = name.unicodeScalars.firstIndex(of: ".") else { return .failure(.invalidVariableType(name)) }
                let key = String(name.unicodeScalars[name.unicodeScalars.index(after: dot)...])
                let map: OrderedDictionary<String, String>
                switch name[..<dot] {
                case "var": map = vars
                case "data": map = data
                default: return .failure(.invalidVariableType(name))
                }
                guard let value = map[key] else { return .failure(.missingVariable(name)) }
                result += value
            }
        }
        return .success(result)
    }
}

#if HERALD_FUZZ

extension FuzzTarget {
    /// What a fuzz target's `LLVMFuzzerTestOneInput` does: check one input, trapping on a broken
    /// invariant so that libFuzzer saves it as a crash.
    public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) {
        do {
            try check(Array(UnsafeBufferPointer(start: data, count: size)))
        } catch {
            fatalError("\(rawValue): \(error)")
        }
    }
}

#else

/// One stored input: a crash the fuzzer found or a hand-picked seed, under FuzzInputs/<target>/.
struct FuzzInput: Sendable, CustomTestStringConvertible {
    let target: FuzzTarget
    let path: String

    var testDescription: String { "\(target.rawValue)/\(URL(fileURLWithPath: path).lastPathComponent)" }

    /// FuzzInputs/, found from this file so that the tests need no resources in the package manifest.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzInputs")

    /// The stored inputs of `target`, by name; hidden files are not inputs.
    static func all(of target: FuzzTarget) -> [FuzzInput] {
        let folder = directory.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { FuzzInput(target: target, path: folder.appendingPathComponent($0).path) }
    }

    static let all: [FuzzInput] = FuzzTarget.allCases.flatMap(all(of:))
}

@Suite("Fuzz regression inputs")
struct FuzzRegressionTests {
    @Test("each stored input passes its fuzz target's invariants", arguments: FuzzInput.all)
    func storedInput(_ input: FuzzInput) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
        do {
            try input.target.check(bytes)
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("every fuzz target has stored inputs", arguments: FuzzTarget.allCases)
    func seeded(_ target: FuzzTarget) {
        #expect(!FuzzInput.all(of: target).isEmpty, "no inputs in FuzzInputs/\(target.rawValue)")
    }
}

#endif
