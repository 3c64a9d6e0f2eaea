extension BodyValue {
    /// The value as compact JSON, members in their order and numbers as they were written: a
    /// decoded body written back without changing what it says.
    public var jsonText: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    /// Writes the value as JSON.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.string(text)
        case .number(let literal): writer.raw(literal)
        case .bool(let value): writer.bool(value)
        case .null: writer.null()
        case .object(let members):
            writer.beginObject()
            for (key, value) in members {
                writer.key(key)
                value.write(to: &writer)
            }
            writer.endObject()
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.endArray()
        }
    }
}
