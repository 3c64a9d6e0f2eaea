import HTTPTypes
import NIOCore
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

    @Test("prepared fields follow the path, keep their indexing, and precede the request's own fields")
    func preparedHeaders() {
        let settings = HTTP2ConnectionSettings(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 8443, tls: nil))
        var shared = HTTPFields()
        shared[.init("apns-push-type")!] = "alert"
        var secret = HTTPField(name: .authorization, value: "bearer abc")
        secret.indexingStrategy = .disallow
        shared.append(secret)
        let prepared = HTTP2PreparedHeaders(shared)
        #expect(prepared.count == 2)
        let request = HTTP2Request(path: "/3/device/abcd", headers: [.init("apns-id")!: "id-1"], preparedHeaders: prepared)
        let headers = settings.headerTemplate.headers(for: request)
        #expect(headers.map(\.name) == [":method", ":scheme", ":authority", ":path", "apns-push-type", "authorization", "apns-id"])
        #expect(headers.first(name: "apns-id") == "id-1")
        let indexing = Dictionary(headers.map { ($0.name, $0.indexable) }, uniquingKeysWith: { first, _ in first })
        #expect(indexing["authorization"] == .neverIndexed)
        #expect(indexing["apns-push-type"] == .indexable)
    }

    @Test("a unique field comes last, its value unindexed unless the connection asks to index its first one")
    func uniqueField() {
        let settings = HTTP2ConnectionSettings(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 8443, tls: nil))
        let apnsID = HTTPField.Name("apns-id")!
        let request = HTTP2Request(
            path: "/3/device/abcd", headers: [.init("apns-topic")!: "com.example.app"],
            uniqueField: HTTP2UniqueField(name: apnsID, value: "eabeae54-14a8-11e5-b60b-1697f925ec7b"))
        let later = settings.headerTemplate.headers(for: request)
        #expect(later.map(\.name) == [":method", ":scheme", ":authority", ":path", "apns-topic", "apns-id"])
        #expect(later.map(\.value).last == "eabeae54-14a8-11e5-b60b-1697f925ec7b")
        #expect(later.map(\.indexable).last == .nonIndexable)
        let first = settings.headerTemplate.headers(for: request, indexingUniqueField: true)
        #expect(first.map(\.indexable).last == .indexable)
        #expect(settings.headerTemplate.headers(for: HTTP2Request(path: "/"), indexingUniqueField: true).count == 4)
    }
}

@Suite("HTTP2Response")
struct HTTP2ResponseTests {
    @Test("received fields are converted when read, without pseudo-header fields")
    func lazyHeaders() {
        var hpack = HPACKHeaders()
        hpack.add(name: ":status", value: "429")
        hpack.add(name: "retry-after", value: "7")
        hpack.add(name: "apns-id", value: "x")
        var response = HTTP2Response(status: 429, receivedFields: .hpack(hpack), body: ByteBuffer())
        #expect(response.headers[.retryAfter] == "7")
        #expect(response.headers.count == 2)
        response.headers = [.retryAfter: "9"]
        #expect(response.headers[.retryAfter] == "9")
        #expect(HTTP2Response(status: 200).headers.isEmpty)
    }
}
