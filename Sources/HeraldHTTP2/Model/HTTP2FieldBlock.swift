import NIOCore

/// Header fields copied back to back into one buffer, each as its name's length, the name, its
/// value's length and the value.
///
/// The nghttp2 engine receives fields one at a time as pointers valid only during a callback: one
/// buffer per response keeps them for a single allocation, where a `String` per field would cost
/// one each (an `apns-id` value is too long for a small string).
struct HTTP2FieldBlock: Sendable {
    private var buffer: ByteBuffer

    /// Creates an empty block with room for a few fields.
    init() {
        self.buffer = ByteBuffer()
    }

    /// Whether the block holds no field.
    var isEmpty: Bool {
        self.buffer.readableBytes == 0
    }

    /// Appends a field.
    ///
    /// - Parameters:
    ///   - name: The field's name (at most 65 535 bytes, as any header list we accept).
    ///   - value: The field's value.
    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        if self.buffer.capacity == 0 {
            self.buffer.reserveCapacity(128)
        }
        self.buffer.writeInteger(UInt32(truncatingIfNeeded: name.count))
        self.buffer.writeBytes(name)
        self.buffer.writeInteger(UInt32(truncatingIfNeeded: value.count))
        self.buffer.writeBytes(value)
    }

    /// Calls `body` with each field's name and value, in order.
    func forEach(_ body: (String, String) -> Void) {
        var reader = self.buffer
        while let nameLength = reader.readInteger(as: UInt32.self),
            let name = reader.readString(length: Int(nameLength)),
            let valueLength = reader.readInteger(as: UInt32.self),
            let value = reader.readString(length: Int(valueLength))
        {
            body(name, value)
        }
    }
}
