import HTTPTypes
import NIOHPACK

/// Regular header fields converted once to the form the pool sends, for fields that many
/// requests share (APNs: push type, priority, topic, content type of one rendered message).
///
/// Copying a prepared block into a request costs one array copy, where building the same
/// fields per request costs a field collection, name checks and a conversion each time.
public struct HTTP2PreparedHeaders: Sendable, Equatable {
    /// The fields in HPACK form, with their indexing strategy.
    let hpack: HPACKHeaders

    /// Prepares `fields`; pseudo-header fields are not allowed (the pool adds them).
    public init(_ fields: HTTPFields) {
        var hpack = HPACKHeaders()
        hpack.reserveCapacity(fields.count)
        for field in fields {
            hpack.add(name: field.name.canonicalName, value: field.value, indexing: Self.indexing(for: field.indexingStrategy))
        }
        self.hpack = hpack
    }

    /// The number of fields.
    public var count: Int {
        self.hpack.count
    }

    /// The HPACK indexing of a field, from its `indexingStrategy`.
    static func indexing(for strategy: HTTPField.DynamicTableIndexingStrategy) -> HPACKIndexing {
        switch strategy {
        case .avoid: .nonIndexable
        case .disallow: .neverIndexed
        default: .indexable
        }
    }
}
