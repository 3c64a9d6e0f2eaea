import CompressNIO
import Foundation
import HeraldCore
import NIOCore

/// A decoded rs/pushd UDP datagram: a compressed `"<METHOD> <URL>"` (§13.1).
public struct EventDatagram: Sendable, Equatable {
    /// The upper-cased method (`POST` when the datagram has none).
    public var method: String
    /// The percent-decoded path.
    public var path: String
    /// The raw query string.
    public var query: String

    /// Largest decompressed text accepted; more is a decompression bomb.
    public static let maxDecompressedSize = 1_048_576

    /// Decompresses (gzip or zlib only) and splits a datagram; `nil` for anything that is not one.
    public static func decode(_ datagram: ByteBuffer) -> EventDatagram? {
        let bytes = Array(datagram.readableBytesView.prefix(2))
        guard bytes.count == 2 else { return nil }
        let algorithm: CompressionAlgorithm
        if bytes[0] == 0x1f && bytes[1] == 0x8b {
            algorithm = .gzip()
        } else if bytes[0] & 0x0f == 8, bytes[0] >> 4 <= 7, (Int(bytes[0]) * 256 + Int(bytes[1])) % 31 == 0 {
            algorithm = .zlib()
        } else {
            return nil
        }
        var input = datagram
        let decompressor = algorithm.decompressor
        guard (try? decompressor.startStream()) != nil else { return nil }
        defer { try? decompressor.finishStream() }
        guard let output = try? input.decompressStream(with: decompressor, maxSize: maxDecompressedSize + 1),
            output.readableBytes > 0, output.readableBytes <= maxDecompressedSize,
            streamEnded(decompressor, rest: &input)
        else { return nil }
        return parse(String(decoding: output.readableBytesView, as: UTF8.self))
    }

    /// Whether the stream `decompressor` has read reached its end (and checksum), rather than being cut short.
    ///
    /// CompressNIO returns whatever a truncated stream inflates to without an error, which would
    /// publish a truncated query. Asked for more after the end, zlib answers "stream end" again;
    /// inside an unfinished stream with no input left it cannot progress, which CompressNIO
    /// throws as `inputBufferOverflow`.
    private static func streamEnded(_ decompressor: NIODecompressor, rest: inout ByteBuffer) -> Bool {
        // Room for output, which zlib requires even when it has nothing to write.
        var probe = ByteBufferAllocator().buffer(capacity: 16)
        do {
            try decompressor.streamInflate(from: &rest, to: &probe)
        } catch {
            return false
        }
        return probe.readableBytes == 0
    }

    /// Splits `"<METHOD> <URL>"` (or just `"<URL>"`, meaning `POST`).
    static func parse(_ text: String) -> EventDatagram? {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        var method = "POST"
        var url = trimmed
        if let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
            method = trimmed[..<space].uppercased()
            url = String(trimmed[space...]).trimmingWhitespace()
        }
        let (rawPath, query) = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init).splitPair()
        return EventDatagram(method: method, path: rawPath.removingPercentEncoding ?? rawPath, query: query ?? "")
    }

    /// The event name, if the path is `/event/<valid name>`.
    public var eventName: EventName? {
        guard path.hasPrefix("/event/") else { return nil }
        return EventName(String(path.dropFirst("/event/".count)))
    }
}

extension Array where Element == String {
    fileprivate func splitPair() -> (String, String?) {
        (self.first ?? "", self.count > 1 ? self[1] : nil)
    }
}
