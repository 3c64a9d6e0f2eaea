import HTTPTypes
import NIOHPACK

extension NGHTTP2HeaderList {
    /// Fills the list with the header block of `request`, in the order and with the indexing the
    /// nio-http2 engine's ``HTTP2HeaderTemplate`` gives it.
    ///
    /// nghttp2 offers two indexings: indexed, or a literal never indexed. Fields HPACK must not
    /// index (`:path`, the unique field after the first, fields marked `.avoid` or `.disallow`) are
    /// sent as the latter, which costs the same bytes as nio-http2's literal without indexing.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - template: The connection's `:scheme` and `:authority`.
    ///   - indexingUniqueField: Whether its unique field goes into the HPACK dynamic table, which the
    ///     connection asks of its first one so that later ones send the field's name as an index.
    func fill(with request: HTTP2Request, template: HTTP2HeaderTemplate, indexingUniqueField: Bool) {
        self.removeAll()
        self.append(name: ":method", value: request.method.rawValue, indexing: true)
        self.append(name: ":scheme", value: template.scheme, indexing: true)
        self.append(name: ":authority", value: template.authority, indexing: true)
        // Paths hold device tokens: indexing them would only evict useful entries (APNs asks for
        // literals without indexing). nghttp2 never indexes `:path` anyway.
        self.append(name: ":path", value: request.path, indexing: false)
        if let identity = request.preparedHeaders?.identity {
            self.appendPrepared(identity: identity) { request.preparedHeaders! }
        }
        for field in request.headers {
            let indexing = HTTP2PreparedHeaders.indexing(for: field.indexingStrategy) == .indexable
            field.withUnsafeBytesOfValue { value in
                self.append(name: field.name.canonicalName, value: value, indexing: indexing)
            }
        }
        if let field = request.uniqueField {
            self.append(name: field.name.canonicalName, value: field.value, indexing: indexingUniqueField)
        }
    }
}
