import OrderedCollections

/// Decodes `application/x-www-form-urlencoded` text with the "extended" rules of
/// rs/pushd (§1.2), which were those of the npm `qs` package behind Express's
/// `bodyParser.urlencoded({extended: true})`.
///
/// * `+` is a space and `%XX` is decoded. As in `qs`, a key or value whose
///   escapes do not decode (`%ZZ`, or bytes that are not UTF-8) is kept
///   literally as a whole, only `+` turned into spaces.
/// * `a[b]=c` gives `{"a":{"b":"c"}}`; `a[]=x`, `a[0]=x` and repeated keys give
///   arrays. Dots are not special.
/// * More than ``parameterLimit`` parameters is an error (413).
///
/// The result is a ``BodyValue/object(_:)`` whose keys are in order of first
/// appearance; a repeated key becomes an array at its first position. (`qs`
/// listed integer-like keys first, as JavaScript objects do; Herald keeps the
/// body order everywhere, which is what the payload rules are written against.)
///
/// The same decoder reads UDP query strings (§13.1).
public enum FormBodyDecoder {
    /// The most parameters (`&`-separated parts) a body may have.
    public static let parameterLimit = 1000

    /// How many bracket levels of a key are split into nested objects; the rest of a
    /// deeper key is kept as one literal key, as `qs` does beyond its `depth`.
    ///
    /// rs/pushd's body-parser passed no limit; 32 (body-parser's later default) keeps a
    /// hostile body from building a tree deep enough to exhaust the stack.
    public static let maximumKeyDepth = 32

    /// Decodes a form body or query string.
    public static func decode<Bytes: Collection>(_ bytes: Bytes) throws(BodyDecodingError) -> BodyValue where Bytes.Element == UInt8 {
        if bytes.isEmpty { return .object([]) }
        var ampersands = 0
        for byte in bytes where byte == UInt8(ascii: "&") {
            ampersands += 1
            // body-parser counted separators and refused at the limit, i.e. at limit + 1 parameters.
            if ampersands == parameterLimit { throw .tooManyParameters }
        }
        var input = Array(bytes)
        if !UTF8Validation.isValid(input) {
            // body-parser decoded the body as UTF-8 with replacement characters before parsing.
            input = Array(String(decoding: input, as: UTF8.self).utf8)
        }
        let parser = QueryParser(arrayLimit: max(100, ampersands))
        return parser.parse(input)
    }

    /// Decodes one form component as `qs` does: `+` → space, then `decodeURIComponent`,
    /// falling back to the text with only `+` replaced when that fails.
    public static func decodeComponent(_ component: String) -> String {
        decodeComponent(Array(component.utf8)[...])
    }

    static func decodeComponent(_ component: ArraySlice<UInt8>) -> String {
        var plusReplaced = component
        var hasPercent = false
        for index in plusReplaced.indices {
            switch plusReplaced[index] {
            case UInt8(ascii: "+"): plusReplaced[index] = UInt8(ascii: " ")
            case UInt8(ascii: "%"): hasPercent = true
            default: break
            }
        }
        guard hasPercent else { return String(decoding: plusReplaced, as: UTF8.self) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(plusReplaced.count)
        var index = plusReplaced.startIndex
        while index < plusReplaced.endIndex {
            let byte = plusReplaced[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < plusReplaced.endIndex,
                    let high = hexValue(plusReplaced[index + 1]),
                    let low = hexValue(plusReplaced[index + 2])
                else {
                    return String(decoding: plusReplaced, as: UTF8.self)
                }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        // decodeURIComponent throws on escapes that do not form UTF-8; qs then keeps the text.
        guard UTF8Validation.isValid(decoded) else { return String(decoding: plusReplaced, as: UTF8.self) }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A value while `qs`'s algorithm runs: JavaScript arrays may have holes until compacted.
    private indirect enum Node {
        case string(String)
        /// `qs` stores `true` when a plain value is merged into an object (`a[b]=1&a=c` → `{"b":"1","c":true}`).
        case bool(Bool)
        case array([Node?])
        case object(OrderedDictionary<String, Node>)

        var isContainer: Bool {
            switch self {
            case .array, .object: true
            case .string, .bool: false
            }
        }

        /// JavaScript truthiness, which `qs`'s merge tests: only the empty string is falsy here.
        var isFalsy: Bool {
            if case .string(let text) = self { return text.isEmpty }
            return false
        }

        /// The property name JavaScript would use for this primitive.
        var keyText: String {
            switch self {
            case .string(let text): text
            case .bool(let value): value ? "true" : "false"
            case .array, .object: ""
            }
        }

        /// `[].concat(self, other)`, in place.
        mutating func concatenate(_ other: Node) {
            var items: [Node?]
            if case .array(let elements) = self { items = elements } else { items = [self] }
            // Let go of the old value so that `items` holds the only reference and grows in place.
            self = .bool(false)
            if case .array(let elements) = other { items.append(contentsOf: elements) } else { items.append(other) }
            self = .array(items)
        }

        /// Changes an array's items in place; does nothing to other values.
        mutating func updateItems(_ body: (inout [Node?]) -> Void) {
            guard case .array(var items) = self else { return }
            self = .bool(false)  // as in `concatenate`: no copy of the items
            body(&items)
            self = .array(items)
        }

        /// Changes an object's members in place; does nothing to other values.
        mutating func updateMembers(_ body: (inout OrderedDictionary<String, Node>) -> Void) {
            guard case .object(var members) = self else { return }
            self = .bool(false)  // as in `concatenate`: no copy of the members
            body(&members)
            self = .object(members)
        }

        /// The value with array holes removed (`qs`'s `compact`), as a body value.
        var bodyValue: BodyValue {
            switch self {
            case .string(let text): .string(text)
            case .bool(let value): .bool(value)
            case .array(let items): .array(items.compactMap { $0?.bodyValue })
            case .object(let members): .object(members.map { (key: $0.key, value: $0.value.bodyValue) })
            }
        }
    }

    /// `qs.parse` with body-parser's options (`allowPrototypes`, `arrayLimit` = max(100, separators)).
    private struct QueryParser {
        let arrayLimit: Int

        func parse(_ input: [UInt8]) -> BodyValue {
            // parseValues: raw keys → values, repeated keys combined into arrays (in place: a new
            // array per repetition made a key repeated n times cost n²).
            var flat: OrderedDictionary<String, Node> = [:]
            for part in input.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
                let (key, value) = splitPart(part)
                if let index = flat.index(forKey: key) {
                    flat.values[index].concatenate(value)
                } else {
                    flat[key] = value
                }
            }
            // parseKeys + merge into one object.
            var result: OrderedDictionary<String, Node> = [:]
            for (key, value) in flat {
                guard let parsed = parseKey(key, value: value) else { continue }
                mergeMembers(of: parsed, into: &result)
            }
            return Node.object(result).bodyValue
        }

        private func splitPart(_ part: ArraySlice<UInt8>) -> (String, Node) {
            // qs splits at "]=" first so that `a[x=y]=z` keeps its key whole.
            var separator: Int?
            var index = part.startIndex
            while index + 1 < part.endIndex {
                if part[index] == UInt8(ascii: "]"), part[index + 1] == UInt8(ascii: "=") {
                    separator = index + 1
                    break
                }
                index += 1
            }
            if separator == nil { separator = part.firstIndex(of: UInt8(ascii: "=")) }
            guard let separator else { return (FormBodyDecoder.decodeComponent(part), .string("")) }
            let key = FormBodyDecoder.decodeComponent(part[part.startIndex..<separator])
            let value = FormBodyDecoder.decodeComponent(part[(separator + 1)...])
            return (key, .string(value))
        }

        /// `[].concat(a, b)`.
        private func combine(_ first: Node, _ second: Node) -> Node {
            var items: [Node?] = []
            for node in [first, second] {
                if case .array(let elements) = node { items.append(contentsOf: elements) } else { items.append(node) }
            }
            return .array(items)
        }

        /// Splits `a[b][c]` into its chain and builds the nested value; `nil` for an empty key.
        private func parseKey(_ key: String, value: Node) -> Node? {
            guard !key.isEmpty else { return nil }
            let bytes = Array(key.utf8)
            var chain: [String] = []
            var segment = bracketGroup(in: bytes, from: 0)
            let parentEnd = segment?.lowerBound ?? bytes.count
            if parentEnd > 0 { chain.append(String(decoding: bytes[..<parentEnd], as: UTF8.self)) }
            var levels = 0
            while let group = segment, levels < FormBodyDecoder.maximumKeyDepth {
                levels += 1
                chain.append(String(decoding: bytes[group], as: UTF8.self))
                segment = bracketGroup(in: bytes, from: group.upperBound)
            }
            if let rest = segment {
                chain.append("[" + String(decoding: bytes[rest.lowerBound...], as: UTF8.self) + "]")
            }
            return buildObject(chain: chain, leaf: value)
        }

        /// The next match of `\[[^[\]]*]` at or after `start`.
        private func bracketGroup(in bytes: [UInt8], from start: Int) -> Range<Int>? {
            var index = start
            while index < bytes.count {
                guard let open = bytes[index...].firstIndex(of: UInt8(ascii: "[")) else { return nil }
                var cursor = open + 1
                while cursor < bytes.count, bytes[cursor] != UInt8(ascii: "["), bytes[cursor] != UInt8(ascii: "]") {
                    cursor += 1
                }
                guard cursor < bytes.count else { return nil }
                if bytes[cursor] == UInt8(ascii: "]") { return open..<(cursor + 1) }
                index = cursor
            }
            return nil
        }

        /// qs's `parseObject`: wraps the leaf from the innermost key outwards.
        private func buildObject(chain: [String], leaf: Node) -> Node {
            var leaf = leaf
            for root in chain.reversed() {
                if root == "[]" {
                    leaf = combine(.array([]), leaf)
                    continue
                }
                let rootBytes = Array(root.utf8)
                let isBracketed = rootBytes.count >= 2 && rootBytes.first == UInt8(ascii: "[") && rootBytes.last == UInt8(ascii: "]")
                let cleanRoot = isBracketed ? String(decoding: rootBytes.dropFirst().dropLast(), as: UTF8.self) : root
                if isBracketed, let index = arrayIndex(cleanRoot), index <= arrayLimit {
                    var items = [Node?](repeating: nil, count: index + 1)
                    items[index] = leaf
                    leaf = .array(items)
                } else {
                    leaf = .object([cleanRoot: leaf])
                }
            }
            return leaf
        }

        /// `cleanRoot` when `String(parseInt(cleanRoot)) === cleanRoot` and it is non-negative.
        private func arrayIndex(_ text: String) -> Int? {
            let bytes = text.utf8
            guard let first = bytes.first, bytes.count <= 9,
                first != UInt8(ascii: "0") || bytes.count == 1,
                bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            return Int(text)
        }

        /// Merges a parsed key's value into an object in place.
        private func mergeMembers(of source: Node, into target: inout OrderedDictionary<String, Node>) {
            for (key, value) in Self.members(of: source) {
                if let index = target.index(forKey: key) {
                    merge(value, into: &target.values[index])
                } else {
                    target[key] = value
                }
            }
        }

        /// The enumerable properties of a container, as `Object.keys` lists them (holes skipped).
        private static func members(of node: Node) -> [(key: String, value: Node)] {
            switch node {
            case .object(let members):
                return members.map { (key: $0.key, value: $0.value) }
            case .array(let items):
                return items.enumerated().compactMap { offset, item in item.map { (key: String(offset), value: $0) } }
            case .string, .bool:
                return []
            }
        }

        /// qs's `utils.merge`, in place as JavaScript's is: a copy of the target per merge made
        /// n keys under one parent cost n² (a 1 MB body of them took a third of a second).
        private func merge(_ source: Node, into target: inout Node) {
            if source.isFalsy { return }
            if !source.isContainer {
                if case .array = target {
                    target.updateItems { $0.append(source) }
                } else if case .object = target {
                    target.updateMembers { $0[source.keyText] = .bool(true) }
                } else {
                    target = .array([target, source])
                }
                return
            }
            if !target.isContainer {
                if case .array(let sourceItems) = source {
                    target = .array([target] + sourceItems)
                } else {
                    target = .array([target, source])
                }
                return
            }
            if case .array = target, case .array(let sourceItems) = source {
                target.updateItems { items in
                    for (offset, item) in sourceItems.enumerated() {
                        guard let item else { continue }
                        if offset < items.count, let existingIsContainer = items[offset]?.isContainer {
                            if existingIsContainer, item.isContainer {
                                merge(item, into: &items[offset]!)
                            } else {
                                items.append(item)
                            }
                        } else {
                            if offset >= items.count { items.append(contentsOf: repeatElement(nil, count: offset - items.count + 1)) }
                            items[offset] = item
                        }
                    }
                }
                return
            }
            // An object, or an array merged with an object, which makes it an object of its indexes.
            if case .array = target {
                target = .object(OrderedDictionary(uniqueKeysWithValues: Self.members(of: target).map { ($0.key, $0.value) }))
            }
            target.updateMembers { mergeMembers(of: source, into: &$0) }
        }
    }
}
