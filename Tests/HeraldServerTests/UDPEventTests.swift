import CompressNIO
import Foundation
import HeraldServer
import HeraldTestSupport
import NIOCore
import NIOPosix
import Testing

/// The UDP event port (§13), acceptance sequence 22 of §16.
@Suite struct UDPEventTests {
    let yaml = "server:\n  udp:\n    port: 1\n"

    func send(_ text: String, compression: CompressionAlgorithm?, to port: Int) async throws {
        var buffer = ByteBuffer(string: text)
        let payload = try compression.map { try buffer.compress(with: $0) } ?? buffer
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: payload)).get()
        try await channel.close().get()
    }

    @Test func compressedDatagramsPublishAndDelete() async throws {
        try await withHerald(yaml: yaml) { herald in
            let port = try #require(herald.udpPort)
            let stream = try await EventStreamClient.connect(herald.baseURL + "/subscribe?events=e4+user@x")
            try await stream.waitFor("\n")
            try await send("POST /event/e4?msg=zlib", compression: .zlib(), to: port)
            try await stream.waitFor("zlib")
            try await send("POST /event/e4?msg=gzip", compression: .gzip(), to: port)
            try await stream.waitFor("gzip")
            try await send("/event/user@x?msg=at+sign", compression: .zlib(), to: port)
            try await stream.waitFor("at sign")
            try await send("POST /event/e4?msg=plain", compression: nil, to: port)
            try await send("POST /event/e4?msg=after", compression: .gzip(), to: port)
            try await stream.waitFor("after")
            #expect(!stream.received.contains("plain"), "uncompressed datagrams are ignored")
            stream.close()

            let id = try await Fixtures.register(herald, url: "http://127.0.0.1:9/x")
            #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e4").status == 201)
            try await send("DELETE /event/e4", compression: .zlib(), to: port)
            try await eventually { try await herald.request(.GET, "/event/e4").status == 404 }
        }
    }

    @Test func datagramsAreCheckedByTheACLEvenWithBasicAuth() async throws {
        let yaml = """
            server:
              udp: {port: 1}
              auth:
                admin: {password: secret, realms: [register, publish, listen]}
              acl:
                publish: [127.0.0.0/8]
            """
        try await withHerald(yaml: yaml) { herald in
            let port = try #require(herald.udpPort)
            let credentials = "Basic " + Data("admin:secret".utf8).base64EncodedString()
            let stream = try await EventStreamClient.connect(
                herald.baseURL + "/subscribe?events=e6", headers: [("Accept", "text/event-stream"), ("Authorization", credentials)])
            #expect(stream.status == 200)
            try await stream.waitFor("\n")
            try await send("POST /event/e6?msg=over+udp", compression: .zlib(), to: port)
            try await stream.waitFor("over udp")
            stream.close()
        }
    }

    @Test func datagramDecoding() throws {
        var zlib = ByteBuffer(string: "post   /event/a%40b?msg=x y")
        let decoded = try #require(EventDatagram.decode(try zlib.compress(with: .zlib())))
        #expect(decoded.method == "POST")
        #expect(decoded.path == "/event/a@b")
        #expect(decoded.query == "msg=x y")
        #expect(EventDatagram.decode(ByteBuffer(string: "POST /event/a?msg=x")) == nil)
        var raw = ByteBuffer(string: "POST /event/a?msg=x")
        #expect(EventDatagram.decode(try raw.compress(with: .deflate())) == nil, "raw deflate is not accepted")
        // A decompression bomb: 2 MiB of zeros compress to a few KiB and must be refused.
        var bomb = ByteBuffer(repeating: 0x20, count: 2 * 1_048_576)
        #expect(EventDatagram.decode(try bomb.compress(with: .gzip())) == nil)
    }
}
