import HTTPTypes
import NIOCore

/// A complete HTTP/2 response: final status, header fields and the whole body.
public struct HTTP2Response: Sendable {
    /// Fields as received, or as set by the caller.
    ///
    /// Received fields stay in the engine's form until ``headers`` is read: most callers only look
    /// at the status, and converting every response's fields would cost allocations per request.
    private enum Fields: Sendable {
        case fields(HTTPFields)
        case received(HTTP2ReceivedFields)
    }

    /// The final (non-informational) status code.
    public var status: Int

    private var fields: Fields

    /// The response header fields, without pseudo-header fields; trailers are not included.
    public var headers: HTTPFields {
        get {
            switch self.fields {
            case .fields(let fields): fields
            case .received(let fields): fields.httpFields
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

    /// Creates a response from the fields an engine received, converted on first read of ``headers``.
    init(status: Int, receivedFields: HTTP2ReceivedFields, body: ByteBuffer) {
        self.status = status
        self.fields = .received(receivedFields)
        self.body = body
    }
}
