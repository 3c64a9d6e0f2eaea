import CNGHTTP2

/// A request's header fields as nghttp2 takes them: an `nghttp2_nv` array over bytes kept in one
/// reusable block of memory.
///
/// One per connection, refilled for every request: names and values are copied into the block
/// (nghttp2 copies them again when the request is submitted, so the block is free for the next
/// request at once), and the array is built over it only when the list is handed to nghttp2,
/// because growing the block may move it. Once the block and the arrays have grown to a request's
/// size, a request costs no allocation here. Raw memory rather than a `ByteBuffer`: a dozen
/// buffer writes per request, each with its exclusivity checks, were a visible part of the engine's
/// profile.
final class NGHTTP2HeaderList {
    /// Where one field's name and value lie in the block.
    private struct Entry {
        var nameOffset: Int
        var nameLength: Int
        var valueOffset: Int
        var valueLength: Int
        var flags: UInt8
    }

    /// The bytes and fields copied from one prepared block, with offsets from the copy's start.
    private struct PreparedCopy {
        var identity: UInt64
        var bytes: [UInt8]
        var entries: [Entry]
    }

    /// How many prepared blocks the list remembers: a page of deliveries carries a few messages.
    private static let preparedCopiesLimit = 8

    private var bytes: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0
    private var entries: [Entry] = []
    private var fields: [nghttp2_nv] = []
    /// The prepared blocks copied lately, the most recent last.
    private var preparedCopies: [PreparedCopy] = []

    /// Creates an empty list.
    init() {
        self.capacity = 1024
        self.bytes = .allocate(byteCount: self.capacity, alignment: 1)
        self.entries.reserveCapacity(16)
        self.fields.reserveCapacity(16)
    }

    deinit {
        self.bytes.deallocate()
    }

    /// Empties the list, keeping its storage.
    func removeAll() {
        self.count = 0
        self.entries.removeAll(keepingCapacity: true)
    }

    /// Appends a field whose name and value are strings.
    ///
    /// - Parameters:
    ///   - name: The field's name, lower case.
    ///   - value: The field's value.
    ///   - indexing: Whether HPACK may add the field to the dynamic table; `false` sends it as a
    ///     literal never indexed (its name may still be an index).
    func append(name: String, value: String, indexing: Bool) {
        let (nameOffset, nameLength) = self.copy(name)
        let (valueOffset, valueLength) = self.copy(value)
        self.entries.append(Entry(
            nameOffset: nameOffset, nameLength: nameLength, valueOffset: valueOffset, valueLength: valueLength,
            flags: Self.flags(indexing: indexing)))
    }

    /// Appends a field whose value is raw bytes.
    func append(name: String, value: UnsafeBufferPointer<UInt8>, indexing: Bool) {
        let (nameOffset, nameLength) = self.copy(name)
        let (valueOffset, valueLength) = self.copy(UnsafeRawBufferPointer(value))
        self.entries.append(Entry(
            nameOffset: nameOffset, nameLength: nameLength, valueOffset: valueOffset, valueLength: valueLength,
            flags: Self.flags(indexing: indexing)))
    }

    /// Appends the fields of a prepared block, from the copy made for an earlier request when
    /// there is one.
    ///
    /// Every request of a message carries the same block, shared by the event loops of every
    /// connection: reading its strings costs atomic reference counting on memory that the other
    /// loops touch too, so the block is read once per connection and its bytes reused.
    ///
    /// - Parameters:
    ///   - identity: The block's ``HTTP2PreparedHeaders/identity``.
    ///   - block: The block, read only when no copy of it is remembered.
    func appendPrepared(identity: UInt64, _ block: () -> HTTP2PreparedHeaders) {
        if let index = self.preparedCopies.lastIndex(where: { $0.identity == identity }) {
            let base = self.count
            self.preparedCopies[index].bytes.withUnsafeBytes { _ = self.copy($0) }
            for entry in self.preparedCopies[index].entries {
                self.entries.append(Entry(
                    nameOffset: entry.nameOffset + base, nameLength: entry.nameLength, valueOffset: entry.valueOffset + base,
                    valueLength: entry.valueLength, flags: entry.flags))
            }
            return
        }
        let base = self.count
        let firstEntry = self.entries.count
        for (name, value, indexing) in block().hpack {
            self.append(name: name, value: value, indexing: indexing == .indexable)
        }
        let copy = PreparedCopy(
            identity: identity,
            bytes: Array(UnsafeRawBufferPointer(start: self.bytes + base, count: self.count - base)),
            entries: self.entries[firstEntry...].map { entry in
                Entry(
                    nameOffset: entry.nameOffset - base, nameLength: entry.nameLength, valueOffset: entry.valueOffset - base,
                    valueLength: entry.valueLength, flags: entry.flags)
            })
        if self.preparedCopies.count == Self.preparedCopiesLimit {
            self.preparedCopies.removeFirst()
        }
        self.preparedCopies.append(copy)
    }

    /// Calls `body` with the list as an `nghttp2_nv` array and its length; the array is valid
    /// only during the call.
    func withNameValueArray<Result>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> Result) -> Result {
        // Moved out and back so that the array stays uniquely referenced: appending never copies it.
        var fields = self.fields
        self.fields = []
        fields.removeAll(keepingCapacity: true)
        // nghttp2 only reads the bytes: the mutable pointers are its C signature's, and without
        // the NO_COPY flags it copies the fields.
        let base = self.bytes.assumingMemoryBound(to: UInt8.self)
        for entry in self.entries {
            fields.append(nghttp2_nv(
                name: base + entry.nameOffset,
                value: base + entry.valueOffset,
                namelen: entry.nameLength,
                valuelen: entry.valueLength,
                flags: entry.flags
            ))
        }
        let result = fields.withUnsafeBufferPointer { fields in
            body(fields.baseAddress!, fields.count)
        }
        self.fields = fields
        return result
    }

    /// Copies a string's UTF-8 bytes to the end of the block.
    private func copy(_ string: String) -> (offset: Int, length: Int) {
        if let copied = string.utf8.withContiguousStorageIfAvailable({ self.copy(UnsafeRawBufferPointer($0)) }) {
            return copied
        }
        var string = string
        return string.withUTF8 { self.copy(UnsafeRawBufferPointer($0)) }
    }

    /// Copies bytes to the end of the block, growing it if needed.
    private func copy(_ source: UnsafeRawBufferPointer) -> (offset: Int, length: Int) {
        let offset = self.count
        let end = offset + source.count
        if end > self.capacity {
            var capacity = self.capacity * 2
            while capacity < end {
                capacity *= 2
            }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            grown.copyMemory(from: self.bytes, byteCount: offset)
            self.bytes.deallocate()
            self.bytes = grown
            self.capacity = capacity
        }
        if let base = source.baseAddress {
            (self.bytes + offset).copyMemory(from: base, byteCount: source.count)
        }
        self.count = end
        return (offset, source.count)
    }

    private static func flags(indexing: Bool) -> UInt8 {
        indexing ? UInt8(NGHTTP2_NV_FLAG_NONE.rawValue) : UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
    }
}
