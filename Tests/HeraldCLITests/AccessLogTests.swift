import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import Testing

/// `server.access_log: true` on the real `herald` binary: each HTTP request is one standard-error line whose
/// message is `<METHOD> <url> <status>` (pushd-api.md §1.4), so a grep for `GET /events 200` finds it.
@Suite(.serialized) struct AccessLogTests {
    /// Sends `GET url` and returns the status code.
    func get(_ url: String) async throws -> Int {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    /// The messages of the log's lines: what follows the `[source] ` of swift-log's `StreamLogHandler`, or the
    /// whole line when it has no such prefix.
    static func messages(_ log: String) -> [String] {
        log.split(separator: "\n").map { line in
            guard let end = line.range(of: "] ") else { return String(line) }
            return String(line[end.upperBound...])
        }
    }

    @Test func eachRequestIsLoggedAsMethodURLStatus() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let config = directory + "/herald.yml"
        try """
            server:
              access_log: true
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        let base = "http://127.0.0.1:\(port)"
        #expect(try await get(base + "/events") == 200)
        #expect(try await get(base + "/no/such/route") == 404)
        #expect(try await get(base + "/status?probe=1") == 204)
        // An event stream is served beside the router on plain HTTP/1.1, and logged the same way.
        let stream = try await EventStreamClient.connect(base + "/subscribe?events=a+b")
        #expect(stream.status == 200)
        stream.close()

        // The line is written before the answer leaves the server, so this normally passes at once; it only
        // guards against a stderr write still on its way to the file when the answer arrives.
        try await eventually(limit: .seconds(30)) {
            Self.messages(herald.log).contains("GET /subscribe?events=a+b 200")
        }
        let messages = Self.messages(herald.log)
        #expect(messages.contains("GET /events 200"), "\(herald.log)")
        #expect(messages.contains("GET /no/such/route 404"), "\(herald.log)")
        #expect(messages.contains("GET /status?probe=1 204"), "\(herald.log)")
        #expect(messages.contains("GET /subscribe?events=a+b 200"), "\(herald.log)")
        #expect(!messages.contains("request"), "the old message text is gone")

        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
    }

    /// `POST /event/scores?msg=goal` compressed with zlib, as UDP datagrams are (pushd-api.md §13).
    static let publishDatagram: [UInt8] = [
        0x78, 0x9c, 0x0b, 0xf0, 0x0f, 0x0e, 0x51, 0xd0, 0x4f, 0x2d, 0x4b, 0xcd, 0x2b, 0xd1, 0x2f, 0x4e, 0xce, 0x2f, 0x4a, 0x2d,
        0xb6, 0xcf, 0x2d, 0x4e, 0xb7, 0x4d, 0xcf, 0x4f, 0xcc, 0x01, 0x00, 0x83, 0x43, 0x09, 0xdc,
    ]

    /// Sends one UDP datagram to `port` on loopback.
    static func sendDatagram(_ bytes: [UInt8], to port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard sent == bytes.count else { throw POSIXError(.EIO) }
    }

    @Test func aUDPPublishIsLoggedWithItsPublishID() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let udpPort = try HeraldProcess.freePort()
        let config = directory + "/herald.yml"
        try """
            server:
              access_log: true
              udp:
                port: \(udpPort)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        try await eventually(limit: .seconds(30)) {
            try Self.sendDatagram(Self.publishDatagram, to: udpPort)
            return herald.log.contains("UDP/POST /event/scores 204")
        }
        let line = try #require(herald.log.split(separator: "\n").first { $0.contains("UDP/POST /event/scores 204") })
        let id = try #require(line.firstMatch(of: /publish=([0-9a-f]{32})/)?.output.1)
        #expect(try await get("http://127.0.0.1:\(port)/publishes/\(id)") == 200, "the logged id is the publish's receipt")
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
    }

    @Test func nothingIsLoggedWithoutAccessLog() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let herald = try await HeraldProcess.start([], port: port, directory: directory)
        #expect(try await get("http://127.0.0.1:\(port)/events") == 200)
        herald.signal(SIGTERM)
        #expect(await herald.waitForExit() == 0)
        #expect(!herald.log.contains("GET /events"), "\(herald.log)")
    }
}
