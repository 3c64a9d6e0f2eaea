import CNGHTTP2
import HTTPTypes
import NIOCore
import NIOHTTP2
import Testing

@testable import HeraldHTTP2

@Suite("NGHTTP2HeaderList")
struct NGHTTP2HeaderListTests {
    /// The list as nghttp2 reads it: each field's name, value and whether HPACK may index it.
    private func fields(of list: NGHTTP2HeaderList) -> [(name: String, value: String, indexing: Bool)] {
        list.withNameValueArray { array, count in
            (0..<count).map { index in
                let field = array[index]
                return (
                    String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen), as: UTF8.self),
                    field.flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) == 0
                )
            }
        }
    }

    @Test("a request's fields in the nio-http2 engine's order, with the same fields kept out of the HPACK table")
    func request() {
        let settings = HTTP2ConnectionSettings(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 8443, tls: nil))
        var shared = HTTPFields()
        shared[.init("apns-topic")!] = "com.example.app"
        var avoided = HTTPField(name: .init("apns-collapse-id")!, value: "c1")
        avoided.indexingStrategy = .avoid
        shared.append(avoided)
        var own = HTTPFields()
        var authorization = HTTPField(name: .authorization, value: "bearer abc")
        authorization.indexingStrategy = .disallow
        own.append(authorization)
        let request = HTTP2Request(
            path: "/3/device/abcd", headers: own, preparedHeaders: HTTP2PreparedHeaders(shared),
            uniqueField: HTTP2UniqueField(name: .init("apns-id")!, value: "0E8E4A37-2F94-4A8D-8F0D-3B2B57A6C9F1"))

        let list = NGHTTP2HeaderList()
        list.fill(with: request, template: settings.headerTemplate, indexingUniqueField: true)
        let first = self.fields(of: list)
        #expect(first.map(\.name) == [":method", ":scheme", ":authority", ":path", "apns-topic", "apns-collapse-id", "authorization", "apns-id"])
        #expect(first.map(\.value) == [
            "POST", "http", "127.0.0.1:8443", "/3/device/abcd", "com.example.app", "c1", "bearer abc", "0E8E4A37-2F94-4A8D-8F0D-3B2B57A6C9F1",
        ])
        #expect(first.map(\.indexing) == [true, true, true, false, true, false, false, true])

        // Refilled for the next request, the list holds only its fields; the unique field is no longer indexed.
        list.fill(with: HTTP2Request(method: .get, path: "/", uniqueField: request.uniqueField), template: settings.headerTemplate, indexingUniqueField: false)
        let second = self.fields(of: list)
        #expect(second.map(\.name) == [":method", ":scheme", ":authority", ":path", "apns-id"])
        #expect(second.first?.value == "GET")
        #expect(second.last?.indexing == false)

        // The prepared block again: its fields come from the list's copy, the same as the first time.
        list.fill(with: request, template: settings.headerTemplate, indexingUniqueField: false)
        let third = self.fields(of: list)
        #expect(third.map(\.name) == first.map(\.name))
        #expect(third.map(\.value) == first.map(\.value))
        #expect(third.map(\.indexing) == [true, true, true, false, true, false, false, false])
    }

    @Test("prepared blocks are told apart: each request gets its own block's fields, whichever were copied before")
    func preparedBlocks() {
        let settings = HTTP2ConnectionSettings(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 8443, tls: nil))
        let blocks = (0..<12).map { HTTP2PreparedHeaders([.init("apns-topic")!: "topic-\($0)"]) }
        #expect(Set(blocks.map(\.identity)).count == 12)
        #expect(HTTP2PreparedHeaders([.init("apns-topic")!: "topic-1"]) == blocks[1])
        let list = NGHTTP2HeaderList()
        for round in 0..<3 {
            for (index, block) in blocks.enumerated() where (index + round) % 2 == 0 || round == 2 {
                list.fill(with: HTTP2Request(path: "/\(index)", preparedHeaders: block), template: settings.headerTemplate, indexingUniqueField: false)
                let fields = self.fields(of: list)
                #expect(fields.map(\.value) == ["POST", "http", "127.0.0.1:8443", "/\(index)", "topic-\(index)"])
            }
        }
    }

    @Test("nio-http2's SETTINGS become the same nghttp2 entries")
    func settings() {
        let settings = HTTP2ConnectionSettings(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 8443, tls: nil))
        let entries = settings.http2.connection.initialSettings.map(\.nghttp2Entry)
        #expect(entries.map(\.settings_id) == [
            Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
            Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
        ])
        #expect(entries.map(\.value) == [0, 0, 1 << 16])
    }
}

@Suite("HTTP2FieldBlock")
struct HTTP2FieldBlockTests {
    @Test("fields come back in order, pseudo-header fields left out of HTTPFields")
    func roundTrip() {
        var block = HTTP2FieldBlock()
        #expect(block.isEmpty)
        for (name, value) in [(":status", "400"), ("apns-id", "0E8E4A37-2F94-4A8D-8F0D-3B2B57A6C9F1"), ("retry-after", ""), ("x-long", String(repeating: "v", count: 70_000))] {
            Array(name.utf8).withUnsafeBytes { name in
                Array(value.utf8).withUnsafeBytes { value in block.append(name: name, value: value) }
            }
        }
        var seen: [String] = []
        block.forEach { name, value in seen.append("\(name)=\(value.count)") }
        #expect(seen == [":status=3", "apns-id=36", "retry-after=0", "x-long=70000"])
        let fields = HTTP2ReceivedFields.block(block).httpFields
        #expect(fields.count == 3)
        #expect(fields[.init("apns-id")!] == "0E8E4A37-2F94-4A8D-8F0D-3B2B57A6C9F1")
        #expect(fields[.retryAfter] == "")
        #expect(HTTP2ReceivedFields.none.httpFields.isEmpty)
    }
}
