import CNGHTTP2
import NIOCore

/// A request's header fields as nghttp2 takes them: an `nghttp2_nv` array over bytes kept in one
/// reusable buffer.
///
/// One per connection, refilled for every request: names and values are copied into ``bytes``
/// (nghttp2 copies them again when the request is submitted, so the buffer is free for the next
/// request at once), and the array is built over it only when the list is handed to nghttp2,
/// because writing may move the buffer. Once both have grown to a request's size, a request costs
/// no allocation here.
struct NGHTTP2HeaderList {
    /// Where one field's name and value lie in ``bytes``.
    private struct Entry {
        var nameOffset: Int
        var nameLength: Int
        var valueOffset: Int
        var valueLength: Int
        var flags: UInt8
    }

    private var bytes: ByteBuffer
    private var entries: [Entry] = []
    private var fields: [nghttp2_nv] = []

    /// Creates an empty list.
    init() {
        self.bytes = ByteBuffer()
        self.bytes.reserveCapacity(1024)
        self.entries.reserveCapacity(16)
        self.fields.reserveCapacity(16)
    }

    /// Empties the list, keeping its storage.
    mutating func removeAll() {
        self.bytes.clear()
        self.entries.removeAll(keepingCapacity: true)
    }

    /// Appends a field whose name and value are strings.
    ///
    /// - Parameters:
    ///   - name: The field's name, lower case.
    ///   - value: The field's value.
    ///   - indexing: Whether HPACK may add the field to the dynamic table; `false` sends it as a
    ///     literal never indexed (its name may still be an index).
    mutating func append(name: String, value: String, indexing: Bool) {
        let nameOffset = self.bytes.writerIndex
        let nameLength = self.bytes.writeString(name)
        let valueOffset = self.bytes.writerIndex
        let valueLength = self.bytes.writeString(value)
        self.entries.append(Entry(
            nameOffset: nameOffset, nameLength: nameLength, valueOffset: valueOffset, valueLength: valueLength,
            flags: Self.flags(indexing: indexing)))
    }

    /// Appends a field whose value is raw bytes.
    mutating func append(name: String, value: UnsafeBufferPointer<UInt8>, indexing: Bool) {
        let nameOffset = self.bytes.writerIndex
        let nameLength = self.bytes.writeString(name)
        let valueOffset = self.bytes.writerIndex
        let valueLength = self.bytes.writeBytes(UnsafeRawBufferPointer(value))
        self.entries.append(Entry(
            nameOffset: nameOffset, nameLength: nameLength, valueOffset: valueOffset, valueLength: valueLength,
            flags: Self.flags(indexing: indexing)))
    }

    /// Calls `body` with the list as an `nghttp2_nv` array and its length; the array is valid
    /// only during the call.
    mutating func withNameValueArray<Result>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> Result) -> Result {
        // Moved out and back so that the array stays uniquely referenced: appending never copies it.
        var fields = self.fields
        self.fields = []
        fields.removeAll(keepingCapacity: true)
        let result = self.bytes.withUnsafeReadableBytes { buffer in
            // The bytes were written from index 0 (the buffer is cleared, never read), so offsets
            // are positions in the readable bytes. nghttp2 only reads them: the mutable pointers
            // are its C signature's, and without the NO_COPY flags it copies the fields.
            let base = UnsafeMutablePointer(mutating: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            for entry in self.entries {
                fields.append(nghttp2_nv(
                    name: base + entry.nameOffset,
                    value: base + entry.valueOffset,
                    namelen: entry.nameLength,
                    valuelen: entry.valueLength,
                    flags: entry.flags
                ))
            }
            return fields.withUnsafeBufferPointer { fields in
                body(fields.baseAddress!, fields.count)
            }
        }
        self.fields = fields
        return result
    }

    private static func flags(indexing: Bool) -> UInt8 {
        indexing ? UInt8(NGHTTP2_NV_FLAG_NONE.rawValue) : UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
    }
}
