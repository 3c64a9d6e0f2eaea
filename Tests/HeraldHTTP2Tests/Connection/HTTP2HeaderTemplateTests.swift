import HTTPTypes
import NIOHPACK
import Testing

@testable import HeraldHTTP2

@Suite("HTTP2HeaderTemplate")
struct HTTP2HeaderTemplateTests {
    @Test("requests carry the pool's scheme and authority, the path unindexed, and the caller's fields")
    func headers() {
        let settings = HTTP2ConnectionSettings(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 8443, tls: nil))
        var fields = HTTPFields()
        fields[.init("apns-topic")!] = "com.example.app"
        var authorization = HTTPField(name: .authorization, value: "bearer abc")
        authorization.indexingStrategy = .disallow
        fields.append(authorization)
        let headers = settings.headerTemplate.headers(for: HTTP2Request(path: "/3/device/abcd", headers: fields))
        #expect(headers.first(name: ":method") == "POST")
        #expect(headers.first(name: ":scheme") == "http")
        #expect(headers.first(name: ":authority") == "127.0.0.1:8443")
        #expect(headers.first(name: ":path") == "/3/device/abcd")
        #expect(headers.first(name: "apns-topic") == "com.example.app")
        let indexing = Dictionary(headers.map { ($0.name, $0.indexable) }, uniquingKeysWith: { first, _ in first })
        #expect(indexing[":path"] == .nonIndexable)
        #expect(indexing["authorization"] == .neverIndexed)

        let get = settings.headerTemplate.headers(for: HTTP2Request(method: .get, path: "/"))
        #expect(get.first(name: ":method") == "GET")
    }

    @Test("the default port is left out of :authority and serverHostname overrides the host")
    func authority() {
        var configuration = HTTP2ClientConfiguration(host: "17.0.0.1", port: 443, tls: .makeClientConfiguration())
        configuration.serverHostname = "api.push.apple.com"
        let settings = HTTP2ConnectionSettings(configuration: configuration)
        let headers = settings.headerTemplate.headers(for: HTTP2Request(path: "/"))
        #expect(headers.first(name: ":authority") == "api.push.apple.com")
        #expect(headers.first(name: ":scheme") == "https")
        #expect(settings.sniHostname == "api.push.apple.com")
        #expect(HTTP2ConnectionSettings(configuration: HTTP2ClientConfiguration(host: "10.0.0.1", port: 443, tls: .makeClientConfiguration())).sniHostname == nil)
    }
}
