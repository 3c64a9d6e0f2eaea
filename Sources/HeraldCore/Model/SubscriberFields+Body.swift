extension SubscriberFields {
    /// Reads the optional subscriber fields from a request body (§3.1 "Field values").
    ///
    /// Strings, numbers and booleans are stored as their text (`5` → `"5"`, `true` →
    /// `"true"`); `null` means not given, so it neither sets nor clears the field; a
    /// later key wins. An object or array throws ``PayloadError/invalidValue(_:)``
    /// for the first such field in body order, and so does a text with a NUL character, which
    /// PostgreSQL cannot store (a store on either backend takes the same fields). Other keys are
    /// ignored, and a body that is not an object gives no fields.
    public static func parse(from body: BodyValue) throws(PayloadError) -> SubscriberFields {
        var fields = SubscriberFields()
        for (key, value) in body.objectMembers ?? [] where names.contains(key) {
            if value.isContainer { throw .invalidValue(key) }
            if let text = value.scalarText {
                if text.utf8.contains(0) { throw .invalidValue(key) }
                fields[key] = text
            }
        }
        return fields
    }
}
