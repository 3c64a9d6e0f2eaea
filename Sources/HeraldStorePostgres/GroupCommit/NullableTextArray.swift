import NIOCore
import PostgresNIO

/// A `text[]` parameter whose elements may be NULL, in PostgreSQL's binary array format.
///
/// postgres-nio encodes arrays of non-optional elements only; a batch statement's optional
/// columns (a registration's language, a publish's payload) need NULL elements, and `unnest`
/// over arrays is cheaper for the server than a JSON document of the same rows.
struct NullableTextArray: PostgresNonThrowingEncodable, Sendable {
    static var psqlType: PostgresDataType { .textArray }
    static var psqlFormat: PostgresFormat { .binary }

    /// The elements, `nil` for NULL.
    var elements: [String?]

    /// An array of `elements`.
    init(_ elements: [String?]) {
        self.elements = elements
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Header: dimensions, whether any element is NULL, the element type; then per dimension
        // its length and lower bound (array_recv in PostgreSQL's arrayfuncs.c).
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains(nil) ? 1 : 0, as: Int32.self)
        buffer.writeInteger(PostgresDataType.text.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            let written = buffer.writeString(element)
            buffer.setInteger(Int32(written), at: lengthIndex)
        }
    }
}
