import HTTPTypes
import NIOCore

/// A complete HTTP/2 response: final status, header fields and the whole body.
public struct HTTP2Response: Sendable {
    /// The final (non-informational) status code.
    public var status: Int

    /// The response header fields, without pseudo-header fields; trailers are not included.
    public var headers: HTTPFields

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
        self.headers = headers
        self.body = body
    }
}
