import HTTPTypes

@testable import HeraldHTTP2

extension HTTP2Response {
    /// A header field by name.
    func header(_ name: String) -> String? {
        self.headers[HTTPField.Name(name)!]
    }
}
