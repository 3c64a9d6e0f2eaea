import HTTPTypes

/// A header field whose value is new in every request, such as APNs' `apns-id`.
///
/// Carried apart from ``HTTP2Request/headers`` so that a request needs no field collection of
/// its own, and sent as Apple asks of `apns-id`: the first request on a connection that carries
/// one adds it to the HPACK dynamic table, so that later requests send the name as an index and
/// only the value, never indexed, as a literal.
public struct HTTP2UniqueField: Sendable, Equatable {
    /// The field's name.
    public let name: HTTPField.Name

    /// The field's value.
    public let value: String

    /// Creates the field.
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - value: Visible ASCII only, as a UUID or a counter is: it is sent as given.
    public init(name: HTTPField.Name, value: String) {
        precondition(value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "a unique field's value is visible ASCII")
        self.name = name
        self.value = value
    }
}
