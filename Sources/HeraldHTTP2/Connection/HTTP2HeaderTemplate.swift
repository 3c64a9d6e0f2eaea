import HTTPTypes
import NIOHPACK

/// The pseudo-header fields every request of a pool shares, built once and copied per request.
///
/// The nio-http2 engine sends the HPACK form; the nghttp2 engine reads ``scheme`` and ``authority``.
struct HTTP2HeaderTemplate: Sendable {
    private let post: HPACKHeaders
    /// The `:scheme` value, `https` or `http`.
    let scheme: String
    /// The `:authority` value.
    let authority: String

    /// Creates the template for one origin.
    ///
    /// - Parameters:
    ///   - scheme: `https` or `http`.
    ///   - authority: The `:authority` value.
    init(scheme: String, authority: String) {
        self.scheme = scheme
        self.authority = authority
        self.post = Self.pseudoHeaders(method: "POST", scheme: scheme, authority: authority)
    }

    /// The complete header block of `request`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - indexingUniqueField: Whether its unique field goes into the HPACK dynamic table, which the
    ///     connection asks of its first one so that later ones send the field's name as an index.
    func headers(for request: HTTP2Request, indexingUniqueField: Bool = false) -> HPACKHeaders {
        var headers = request.method == .post
            ? self.post
            : Self.pseudoHeaders(method: request.method.rawValue, scheme: self.scheme, authority: self.authority)
        headers.reserveCapacity(5 + (request.preparedHeaders?.count ?? 0) + request.headers.count)
        // Paths hold device tokens: indexing them would only evict useful entries (APNs asks for
        // literals without indexing).
        headers.add(name: ":path", value: request.path, indexing: .nonIndexable)
        if let prepared = request.preparedHeaders {
            headers.add(contentsOf: prepared.hpack)
        }
        for field in request.headers {
            headers.add(
                name: field.name.canonicalName, value: field.value,
                indexing: HTTP2PreparedHeaders.indexing(for: field.indexingStrategy))
        }
        if let field = request.uniqueField {
            headers.add(name: field.name.canonicalName, value: field.value, indexing: indexingUniqueField ? .indexable : .nonIndexable)
        }
        return headers
    }

    private static func pseudoHeaders(method: String, scheme: String, authority: String) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(4)
        headers.add(name: ":method", value: method)
        headers.add(name: ":scheme", value: scheme)
        headers.add(name: ":authority", value: authority)
        return headers
    }
}
