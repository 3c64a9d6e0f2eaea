import HTTPTypes
import NIOCore

/// One HTTP/2 request: method, path, header fields and body.
///
/// The pool adds `:scheme` and `:authority` from its configuration; `:path` is sent without HPACK
/// indexing (every device token is different, so indexing paths only churns the dynamic table).
/// Field values keep their `indexingStrategy`, so a caller can mark `authorization` as `.avoid`
/// or `.disallow` as APNs asks.
public struct HTTP2Request: Sendable {
    /// The request method.
    public var method: HTTPRequest.Method

    /// The request target, for example `/3/device/<token>`.
    public var path: String

    /// The regular header fields; pseudo-header fields are added by the pool.
    public var headers: HTTPFields

    /// Fields shared by many requests, prepared once; sent before ``headers``.
    public var preparedHeaders: HTTP2PreparedHeaders?

    /// A field whose value is new in every request (APNs' `apns-id`); sent after ``headers``.
    public var uniqueField: HTTP2UniqueField?

    /// The request body; an empty body ends the stream with the HEADERS frame.
    public var body: ByteBuffer

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The request method, `POST` by default.
    ///   - path: The request target.
    ///   - headers: Regular header fields.
    ///   - preparedHeaders: Regular header fields shared with other requests, sent before `headers`.
    ///   - uniqueField: A field whose value is new in every request, sent after `headers`.
    ///   - body: The request body.
    public init(
        method: HTTPRequest.Method = .post,
        path: String,
        headers: HTTPFields = [:],
        preparedHeaders: HTTP2PreparedHeaders? = nil,
        uniqueField: HTTP2UniqueField? = nil,
        body: ByteBuffer = ByteBuffer()
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.preparedHeaders = preparedHeaders
        self.uniqueField = uniqueField
        self.body = body
    }
}
