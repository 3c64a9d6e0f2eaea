import HTTPTypes
import NIOHPACK
import Synchronization

/// Regular header fields converted once to the form the pool sends, for fields that many
/// requests share (APNs: push type, priority, topic, content type of one rendered message).
///
/// Copying a prepared block into a request costs one array copy, where building the same
/// fields per request costs a field collection, name checks and a conversion each time.
public struct HTTP2PreparedHeaders: Sendable, Equatable {
    /// The source of ``identity``.
    private static let identities = Atomic<UInt64>(0)

    /// The fields in HPACK form, with their indexing strategy.
    let hpack: HPACKHeaders

    /// Tells prepared blocks apart without reading their fields: the nghttp2 engine keeps the bytes
    /// it copied from a block under this number, because reading the block's strings again for
    /// every request would bounce their reference counts between the event loops that share them.
    let identity: UInt64

    /// Prepares `fields`; pseudo-header fields are not allowed (the pool adds them).
    public init(_ fields: HTTPFields) {
        var hpack = HPACKHeaders()
        hpack.reserveCapacity(fields.count)
        for field in fields {
            hpack.add(name: field.name.canonicalName, value: field.value, indexing: Self.indexing(for: field.indexingStrategy))
        }
        self.hpack = hpack
        self.identity = Self.identities.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The number of fields.
    public var count: Int {
        self.hpack.count
    }

    /// Whether both blocks hold the same fields with the same indexing.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.hpack == rhs.hpack
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
