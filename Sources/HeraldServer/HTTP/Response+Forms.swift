import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// A compact JSON body with `Content-Type: application/json; charset=utf-8`.
    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// The status's reason phrase as `text/plain; charset=utf-8`, as rs/pushd's bare answers.
    static func bare(_ status: HTTPResponse.Status, body: String? = nil) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: body ?? status.reasonPhrase))
        )
    }

    /// 204 with no body.
    static var noContent: Response { Response(status: .noContent) }
}
