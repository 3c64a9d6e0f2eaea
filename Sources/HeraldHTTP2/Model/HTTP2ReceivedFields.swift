import HTTPTypes
import NIOHPACK

/// A response's header fields as an engine decoded them, converted to `HTTPFields` only when read.
///
/// Most callers only look at the status (APNs reads the fields of errors only), so converting
/// every response's fields would cost allocations per request for nothing.
enum HTTP2ReceivedFields: Sendable {
    /// The response carried no regular fields.
    case none
    /// As nio-http2 decoded them (pseudo-header fields included).
    case hpack(HPACKHeaders)
    /// As nghttp2 handed them over, copied back to back into one buffer.
    case block(HTTP2FieldBlock)

    /// The fields without pseudo-header fields; fields whose names are not valid tokens are skipped.
    var httpFields: HTTPFields {
        var fields = HTTPFields()
        switch self {
        case .none:
            break
        case .hpack(let headers):
            fields.reserveCapacity(headers.count)
            for (name, value, _) in headers where !name.hasPrefix(":") {
                if let fieldName = HTTPField.Name(name) {
                    fields.append(HTTPField(name: fieldName, value: value))
                }
            }
        case .block(let block):
            block.forEach { name, value in
                if !name.hasPrefix(":"), let fieldName = HTTPField.Name(name) {
                    fields.append(HTTPField(name: fieldName, value: value))
                }
            }
        }
        return fields
    }
}
