/// A single-pass, allocation-free check that bytes form syntactically valid JSON (RFC 8259).
///
/// The simulators sit on the benchmark's hot path, where decoding every body into Foundation objects would cost
/// more than the client under test; they only need to know whether the body *is* JSON, never its contents.
/// UTF-8 validity is left to the caller (the standard library validates it cheaply).
public enum JSONSyntaxValidator {
    /// Nesting deeper than this is rejected, which bounds the recursion.
    public static let maximumDepth = 128

    /// Whether `bytes` is exactly one JSON object, optionally surrounded by whitespace.
    public static func isObject(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var scanner = JSONSyntaxScanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.peek() == UInt8(ascii: "{"), scanner.value(depth: 0) else { return false }
        scanner.skipWhitespace()
        return scanner.isAtEnd
    }

    /// Whether `bytes` is exactly one JSON value of any kind, optionally surrounded by whitespace.
    public static func isValue(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var scanner = JSONSyntaxScanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.value(depth: 0) else { return false }
        scanner.skipWhitespace()
        return scanner.isAtEnd
    }
}
