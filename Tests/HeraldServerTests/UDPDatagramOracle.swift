import CompressNIO
import HeraldCore
import NIOCore

#if HERALD_FUZZ
import HeraldUDPDatagram
#else
import HeraldServer
#endif

// Shared with the fuzz target (Fuzz/Sources/FuzzUDPDatagram links to this file): self-contained
// (HeraldCore, CompressNIO, NIOCore and EventDatagram only), so the fuzzer and
// UDPDatagramRegressionTests check exactly the same invariants.

/// An invariant of the datagram decoder that an input broke.
struct UDPInvariantViolation: Error, CustomStringConvertible {
    let description: String
}

/// What must hold for `EventDatagram.decode` whatever the datagram.
///
/// Random bytes are almost never a compressed stream, so the first byte of an input chooses
/// how the rest becomes a datagram:
///
/// | `input[0] % 3` | datagram |
/// |---|---|
/// | 0 | the rest as is |
/// | 1 | the rest as text, compressed with zlib and with gzip, whole and cut short (at `input[1]`) |
/// | 2 | a zlib header followed by the rest: garbage for the inflater itself |
///
/// Every decoded datagram then goes through what `UDPEventService` does with it: the event
/// name, the query as a form, and for a `POST` the payload compiler. The decompression bound
/// is checked on every input that inflates at all, and at its edge by ``checkBound()``.
enum UDPDatagramOracle {
    static func check(_ input: [UInt8]) throws(UDPInvariantViolation) {
        guard let mode = input.first else {
            try require(try decode([]) == nil, "an empty datagram decoded")
            return
        }
        let rest = Array(input.dropFirst())
        switch mode % 3 {
        case 0: try checkRaw(rest)
        case 1: try checkCompressed(text: rest, cut: input.count > 1 ? Int(input[1]) : 0)
        default: try checkRaw([0x78, 0x9C] + rest)
        }
    }

    /// Whatever the bytes, nothing that inflates to more than the bound decodes.
    private static func checkRaw(_ datagram: [UInt8]) throws(UDPInvariantViolation) {
        guard try decode(datagram) != nil else { return }
        // Inflated again without the decoder's care, only up to twice the bound (the largest
        // datagram could inflate to some 64 MB).
        let bound = EventDatagram.maxDecompressedSize
        let algorithm: CompressionAlgorithm = datagram.starts(with: [0x1F, 0x8B]) ? .gzip() : .zlib()
        var buffer = ByteBuffer(bytes: datagram)
        let size = (try? buffer.decompress(with: algorithm, maxSize: 2 * bound).readableBytes) ?? 2 * bound
        try require(size <= bound, "a datagram inflating to \(size) bytes decoded")
    }

    /// Text of exactly the bound's size decodes, one byte more does not.
    ///
    /// Deterministic, and too slow (it inflates a megabyte) to run for every fuzz input: the
    /// fuzz target runs it once when it starts.
    static func checkBound() throws(UDPInvariantViolation) {
        let bound = EventDatagram.maxDecompressedSize
        for unit in ["a", "/event/x?a=b&"] {
            for length in [bound, bound + 1] {
                var text: [UInt8] = []
                text.reserveCapacity(length)
                while text.count < length { text.append(contentsOf: unit.utf8.prefix(length - text.count)) }
                for algorithm in [CompressionAlgorithm.zlib(), .gzip()] {
                    let accepted = try decode(compress(text, with: algorithm)) != nil
                    try require(accepted == (length <= bound), "\(length) bytes of \(unit.debugDescription) with \(algorithm) were \(accepted ? "accepted" : "refused")")
                }
            }
        }
    }

    /// Compressed text decodes (to the same datagram with zlib and gzip) exactly when it is not
    /// blank, and a stream cut short anywhere does not decode at all.
    private static func checkCompressed(text: [UInt8], cut: Int) throws(UDPInvariantViolation) {
        let zlib = compress(text, with: .zlib())
        let gzip = compress(text, with: .gzip())
        let fromZlib = try decode(zlib)
        let fromGzip = try decode(gzip)
        try require(fromZlib == fromGzip, "zlib gave \(String(describing: fromZlib)), gzip \(String(describing: fromGzip))")
        let blank = String(decoding: text, as: UTF8.self).trimmingWhitespace().isEmpty
        try require((fromZlib == nil) == blank, "\(String(describing: fromZlib)) for \(String(decoding: text, as: UTF8.self).debugDescription)")
        let simple = text.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "%") }
        if simple, let datagram = fromZlib {
            let expected = (method: "POST", path: String(decoding: text, as: UTF8.self), query: "")
            try require(datagram.method == expected.method && datagram.path == expected.path && datagram.query == expected.query, "\(datagram) for a bare path")
        }
        for stream in [zlib, gzip] {
            let length = cut % stream.count
            try require(try decode(Array(stream.prefix(length))) == nil, "a stream cut to \(length) of \(stream.count) bytes decoded")
        }
    }

    /// Decodes a datagram and handles it as `UDPEventService` does.
    @discardableResult
    private static func decode(_ bytes: [UInt8]) throws(UDPInvariantViolation) -> EventDatagram? {
        guard let datagram = EventDatagram.decode(ByteBuffer(bytes: bytes)) else { return nil }
        try require(!datagram.method.isEmpty, "a datagram without a method")
        // The text is the decompressed bytes repaired to UTF-8: at most one scalar of at most
        // 3 bytes per byte. Upper-casing may then turn one scalar into 3 (`ΐ`).
        let bound = EventDatagram.maxDecompressedSize
        let size = datagram.path.utf8.count + datagram.query.utf8.count
        try require(size <= 3 * bound, "\(size) bytes of path and query from one datagram")
        try require(datagram.method.unicodeScalars.count <= 3 * bound, "a method of \(datagram.method.unicodeScalars.count) scalars")
        if let event = datagram.eventName, datagram.method == "POST",
            let payload = try? FormBodyDecoder.decode(Array(datagram.query.utf8))
        {
            _ = try? PayloadCompiler.compile(payload, event: event.rawValue)
        }
        return datagram
    }

    private static func compress(_ bytes: [UInt8], with algorithm: CompressionAlgorithm) -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        // Compressing into a buffer sized by zlib's own bound cannot fail.
        let compressed = try! buffer.compress(with: algorithm)
        return Array(compressed.readableBytesView)
    }

    private static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(UDPInvariantViolation) {
        if !condition { throw UDPInvariantViolation(description: message()) }
    }
}
