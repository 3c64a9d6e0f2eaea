import HeraldCore

/// Decodes a form body written as text, as the spec's examples are.
func form(_ text: String) throws -> BodyValue {
    try FormBodyDecoder.decode(Array(text.utf8))
}

/// Parses a JSON text.
func json(_ text: String) throws -> BodyValue {
    try JSONBodyParser.parse(Array(text.utf8))
}

/// An object body from key/value pairs, in order.
func object(_ members: (String, BodyValue)...) -> BodyValue {
    .object(members.map { (key: $0.0, value: $0.1) })
}
