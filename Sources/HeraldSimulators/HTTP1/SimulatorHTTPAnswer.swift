import HTTPTypes
import Hummingbird

/// Builds the simulators' HTTP answers.
enum SimulatorHTTPAnswer {
    /// A response with `status`, `headers` (name, value) and a text `body`.
    static func make(status: Int, headers: [(String, String)] = [], body: String = "") -> Response {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: fields,
            body: body.isEmpty ? .init() : .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// The value of the request header `name`, if present.
    static func header(_ request: Request, _ name: String) -> String? {
        HTTPField.Name(name).flatMap { request.headers[$0] }
    }

    /// Every request header as (name, value), in order.
    static func headers(_ request: Request) -> [(name: String, value: String)] {
        request.headers.map { ($0.name.rawName, $0.value) }
    }
}
