/// The cursor behind ``JSONSyntaxValidator``: one recursive-descent pass over the bytes, no allocation.
struct JSONSyntaxScanner {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { self.index >= self.bytes.count }

    func peek() -> UInt8? {
        self.index < self.bytes.count ? self.bytes[self.index] : nil
    }

    mutating func skipWhitespace() {
        while let byte = self.peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            self.index += 1
        }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard self.peek() == byte else { return false }
        self.index += 1
        return true
    }

    mutating func value(depth: Int) -> Bool {
        guard depth < JSONSyntaxValidator.maximumDepth, let byte = self.peek() else { return false }
        switch byte {
        case UInt8(ascii: "{"): return self.object(depth: depth + 1)
        case UInt8(ascii: "["): return self.array(depth: depth + 1)
        case UInt8(ascii: "\""): return self.string()
        case UInt8(ascii: "t"): return self.literal("true")
        case UInt8(ascii: "f"): return self.literal("false")
        case UInt8(ascii: "n"): return self.literal("null")
        default: return self.number()
        }
    }

    mutating func object(depth: Int) -> Bool {
        self.index += 1  // "{"
        self.skipWhitespace()
        if self.consume(UInt8(ascii: "}")) { return true }
        while true {
            self.skipWhitespace()
            guard self.peek() == UInt8(ascii: "\""), self.string() else { return false }
            self.skipWhitespace()
            guard self.consume(UInt8(ascii: ":")) else { return false }
            self.skipWhitespace()
            guard self.value(depth: depth) else { return false }
            self.skipWhitespace()
            if self.consume(UInt8(ascii: "}")) { return true }
            guard self.consume(UInt8(ascii: ",")) else { return false }
        }
    }

    mutating func array(depth: Int) -> Bool {
        self.index += 1  // "["
        self.skipWhitespace()
        if self.consume(UInt8(ascii: "]")) { return true }
        while true {
            self.skipWhitespace()
            guard self.value(depth: depth) else { return false }
            self.skipWhitespace()
            if self.consume(UInt8(ascii: "]")) { return true }
            guard self.consume(UInt8(ascii: ",")) else { return false }
        }
    }

    mutating func string() -> Bool {
        self.index += 1  // opening quote
        while let byte = self.peek() {
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return true
            case UInt8(ascii: "\\"):
                guard let escaped = self.peek() else { return false }
                self.index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard let hex = self.peek(), hex.isHexDigit else { return false }
                        self.index += 1
                    }
                default:
                    return false
                }
            case 0x00..<0x20:
                return false
            default:
                continue
            }
        }
        return false
    }

    mutating func number() -> Bool {
        _ = self.consume(UInt8(ascii: "-"))
        if self.consume(UInt8(ascii: "0")) {
            // A leading zero stands alone: "01" is not JSON.
        } else {
            guard self.digits() else { return false }
        }
        if self.consume(UInt8(ascii: ".")) {
            guard self.digits() else { return false }
        }
        if self.consume(UInt8(ascii: "e")) || self.consume(UInt8(ascii: "E")) {
            if !self.consume(UInt8(ascii: "+")) { _ = self.consume(UInt8(ascii: "-")) }
            guard self.digits() else { return false }
        }
        return true
    }

    mutating func digits() -> Bool {
        let start = self.index
        while let byte = self.peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            self.index += 1
        }
        return self.index > start
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard self.bytes.count - self.index >= count else { return false }
        for offset in 0..<count where self.bytes[self.index + offset] != word.utf8Start[offset] {
            return false
        }
        self.index += count
        return true
    }
}
