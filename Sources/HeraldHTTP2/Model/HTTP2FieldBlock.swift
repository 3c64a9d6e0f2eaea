/// Header fields copied back to back into one array, each as its name's length, the name, its
/// value's length and the value.
///
/// The nghttp2 engine receives fields one at a time as pointers valid only during a callback: one
/// array per response keeps them for a single allocation, where a `String` per field would cost
/// one each (an `apns-id` value is too long for a small string). An array rather than a
/// `ByteBuffer`, whose every write costs exclusivity checks inside NIO.
struct HTTP2FieldBlock: Sendable {
    private var bytes: [UInt8] = []

    /// Creates an empty block.
    init() {}

    /// Whether the block holds no field.
    var isEmpty: Bool {
        self.bytes.isEmpty
    }

    /// Appends a field.
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - value: The field's value.
    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        if self.bytes.isEmpty {
            self.bytes.reserveCapacity(128)
        }
        self.appendLength(name.count)
        self.bytes.append(contentsOf: name)
        self.appendLength(value.count)
        self.bytes.append(contentsOf: value)
    }

    /// Calls `body` with each field's name and value, in order.
    func forEach(_ body: (String, String) -> Void) {
        self.bytes.withUnsafeBytes { bytes in
            var offset = 0
            func take() -> String? {
                guard offset + 4 <= bytes.count else { return nil }
                let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                offset += 4
                guard offset + length <= bytes.count else { return nil }
                defer { offset += length }
                return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
            }
            while let name = take(), let value = take() {
                body(name, value)
            }
        }
    }

    private mutating func appendLength(_ length: Int) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: length).littleEndian) { self.bytes.append(contentsOf: $0) }
    }
}
