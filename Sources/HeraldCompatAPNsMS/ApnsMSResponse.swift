import HTTPTypes
import Hummingbird
import NIOCore

/// The answers of apns-ms's two routes, whatever their status.
enum ApnsMSResponse {
    /// apns-ms's content type, `utf8` without a hyphen as it wrote it (compat.md §4.1).
    static let contentType = "application/json; charset=utf8"

    /// `body` (compact JSON, or empty) with apns-ms's content type.
    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
