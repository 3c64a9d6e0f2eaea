import HTTPTypes
import NIOCore
import NIOHPACK

/// A complete HTTP/2 response: final status, header fields and the whole body.
public struct HTTP2Response: Sendable {
    /// Fields as received, or as set by the caller.
    ///
    /// Received fields stay in their HPACK form until ``headers`` is read: most callers only look
    /// at the status, and converting every response's fields would cost allocations per request.
    private enum Fields: Sendable {
        case fields(HTTPFields)
        case hpack(HPACKHeaders)
    }

    /// The final (non-informational) status code.
    public var status: Int

    private var fields: Fields

    /// The response header fields, without pseudo-header fields; trailers are not included.
    public var headers: HTTPFields {
        get {
            switch self.fields {
            case .fields(let fields): fields
            case .hpack(let headers): Self.convert(headers)
            }
        }
        set {
            self.fields = .fields(newValue)
        }
    }

    /// The response body, empty when the server sent none.
    public var body: ByteBuffer

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The header fields.
    ///   - body: The body.
    public init(status: Int, headers: HTTPFields = [:], body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.fields = .fields(headers)
        self.body = body
    }

    /// Creates a response from received HPACK fields, converted on first read of ``headers``.
    init(status: Int, hpackHeaders: HPACKHeaders, body: ByteBuffer) {
        self.status = status
        self.fields = .hpack(hpackHeaders)
        self.body = body
    }

    private static func convert(_ headers: HPACKHeaders) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value, _) in headers where !name.hasPrefix(":") {
            if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        return fields
    }
}
