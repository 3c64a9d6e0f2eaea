import AsyncHTTPClient
import Foundation
import HeraldSimulators
import HeraldTestSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing

/// Herald's own port over TLS (`server.http.tls`): real handshakes verified against a test CA,
/// HTTP/2 and HTTP/1.1 by ALPN, the same routes and realms; and the apns-ms port's `tls`.
@Suite struct TLSServerTests {
    /// A CA, one server certificate from it, and its files in a fresh directory.
    struct Certificates {
        let authority: SimulatorCertificateAuthority
        let issued: SimulatorCertificateAuthority.ServerCertificate
        let directory: String
        var certificateFile: String { directory + "/server.pem" }
        var keyFile: String { directory + "/server-key.pem" }

        init() throws {
            authority = try SimulatorCertificateAuthority()
            issued = try authority.issueServerCertificate(commonName: "herald-tls-test")
            directory = TestHerald.makeTemporaryDirectory()
            try issued.write(certificateFile: certificateFile, keyFile: keyFile)
        }

        /// The `tls:` mapping, in flow style.
        var yaml: String { "{cert_file: \(certificateFile), key_file: \(keyFile)}" }
    }

    /// An HTTP client trusting only the test CA; `http1Only` keeps it from offering `h2`.
    func withClient<T>(_ certificates: Certificates, http1Only: Bool = false, _ body: (HTTPClient) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration(tlsConfiguration: try certificates.authority.clientTLSConfiguration(applicationProtocols: ["h2", "http/1.1"]))
        configuration.httpVersion = http1Only ? .http1Only : .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// A request's status, HTTP version and body.
    func send(
        _ client: HTTPClient, _ url: String, method: HTTPMethod = .GET, form: String? = nil, headers: [(String, String)] = []
    ) async throws -> (status: Int, version: HTTPVersion, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.version, String(buffer: body))
    }

    @Test func anHTTP2ClientGetsHTTP2OverVerifiedTLSOnRealRoutes() async throws {
        let certificates = try Certificates()
        try await withHerald(yaml: "server:\n  http: {tls: \(certificates.yaml)}\n") { herald in
            try await withClient(certificates) { client in
                let base = "https://localhost:\(herald.port)"
                let status = try await send(client, base + "/status")
                #expect(status.status == 204)
                #expect(status.version == .http2, "ALPN must hand an HTTP/2 client HTTP/2")

                let registered = try await send(
                    client, base + "/subscribers", method: .POST, form: "proto=http&token=http%3A%2F%2Fexample.com%2Fhook")
                #expect(registered.status == 201, "\(registered.body)")
                #expect(registered.version == .http2)
                let id = try #require((try Fixtures.json(registered.body) as? [String: Any])?["id"] as? String)
                let read = try await send(client, base + "/subscriber/\(id)")
                #expect(read.status == 200)
                #expect(read.body.contains("example.com"))
                #expect(try await herald.application.store.counts().subscribers == 1)
            }
        }
    }

    @Test func anHTTP1OnlyClientIsServedHTTP1() async throws {
        let certificates = try Certificates()
        try await withHerald(yaml: "server:\n  http: {tls: \(certificates.yaml)}\n") { herald in
            try await withClient(certificates, http1Only: true) { client in
                let status = try await send(client, "https://127.0.0.1:\(herald.port)/status")
                #expect(status.status == 204)
                #expect(status.version == .http1_1)
            }
            // A raw handshake offering only http/1.1, then requests on that one connection.
            let probe = try await TLSProbe.connect(
                port: herald.port, configuration: try certificates.authority.clientTLSConfiguration(applicationProtocols: ["http/1.1"]))
            #expect(probe.negotiatedProtocol == "http/1.1")
            #expect(try await probe.get("/status") == 204)
            #expect(try await probe.get("/status") == 204)
            await probe.close()
        }
    }

    @Test func theHandshakePresentsTheConfiguredCertificateAndNegotiatesH2() async throws {
        let certificates = try Certificates()
        try await withHerald(yaml: "server:\n  http: {tls: \(certificates.yaml)}\n") { herald in
            let probe = try await TLSProbe.connect(port: herald.port, configuration: try certificates.authority.clientTLSConfiguration(applicationProtocols: ["h2", "http/1.1"]))
            #expect(probe.negotiatedProtocol == "h2")
            #expect(probe.peerCertificateDER == certificates.issued.certificateDER)
            await probe.close()
        }
    }

    @Test func tlsOlderThan12IsRefused() async throws {
        let certificates = try Certificates()
        try await withHerald(yaml: "server:\n  http: {tls: \(certificates.yaml)}\n") { herald in
            var old = try certificates.authority.clientTLSConfiguration(applicationProtocols: ["http/1.1"])
            old.minimumTLSVersion = .tlsv1
            old.maximumTLSVersion = .tlsv11
            await #expect(throws: (any Error).self) {
                let probe = try await TLSProbe.connect(port: herald.port, configuration: old)
                await probe.close()
            }
        }
    }

    @Test func aClientThatNeverFinishesItsHandshakeIsDisconnected() async throws {
        let certificates = try Certificates()
        try await withHerald(yaml: "server:\n  header_timeout: 0.3\n  http: {tls: \(certificates.yaml)}\n") { herald in
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: herald.port) { channel in
                    channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
                }
            let closed = try await channel.executeThenClose { inbound, outbound in
                // The first bytes of a TLS record, then nothing.
                try await outbound.write(ByteBuffer(bytes: [0x16, 0x03, 0x01]))
                return try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        do {
                            for try await _ in inbound {}
                        } catch {}
                        return true
                    }
                    group.addTask {
                        // A hang guard, not a timing assertion.
                        try await Task.sleep(for: .seconds(30))
                        return false
                    }
                    let first = try await group.next() ?? false
                    group.cancelAll()
                    return first
                }
            }
            #expect(closed, "the server kept a connection whose handshake never finished")
        }
    }

    @Test func theEventStreamWorksOverHTTP2() async throws {
        let certificates = try Certificates()
        try await withHerald(yaml: "server:\n  http: {tls: \(certificates.yaml)}\n") { herald in
            try await withClient(certificates) { client in
                let base = "https://localhost:\(herald.port)"
                var request = HTTPClientRequest(url: base + "/subscribe?events=e")
                request.headers.add(name: "Accept", value: "text/event-stream")
                let response = try await client.execute(request, timeout: .seconds(30))
                // The route answers `Connection: close` for HTTP/1.1; HTTP/2 forbids the field,
                // and a stream whose answer carried it would be reset.
                #expect(response.status == .ok)
                #expect(response.version == .http2)
                #expect(response.headers["Connection"].isEmpty)
                #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
                #expect(try await send(client, base + "/event/e", method: .POST, form: "msg=hello").status == 204)
                var received = ""
                for try await chunk in response.body {
                    received += String(buffer: chunk)
                    if received.contains("\n\n") { break }
                }
                #expect(received.contains(#"data: {"event":"e","title":{},"message":{"default":"hello"},"data":{}}"#), "\(received)")
            }
        }
    }

    @Test func theEventStreamKeepsConnectionCloseOverHTTP1() async throws {
        let certificates = try Certificates()
        let herald = try await TestHerald.start(yaml: "server:\n  http: {tls: \(certificates.yaml)}\n")
        var configuration = HTTPClient.Configuration(tlsConfiguration: try certificates.authority.clientTLSConfiguration(applicationProtocols: ["h2", "http/1.1"]))
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let base = "https://127.0.0.1:\(herald.port)"
            var request = HTTPClientRequest(url: base + "/subscribe?events=e")
            request.headers.add(name: "Accept", value: "text/event-stream")
            let stream = try await client.execute(request, timeout: .seconds(30))
            #expect(stream.status == .ok)
            #expect(stream.version == .http1_1)
            #expect(stream.headers.first(name: "Connection") == "close", "only HTTP/2 answers lose connection-specific fields")
            #expect(try await send(client, base + "/event/e", method: .POST, form: "msg=hello").status == 204)
            var received = ""
            for try await chunk in stream.body {
                received += String(buffer: chunk)
                if received.contains("\n\n") { break }
            }
            #expect(received.contains("hello"))
        } catch {
            Issue.record(error)
        }
        // The server first: its shutdown ends the open stream. (AsyncHTTPClient leaves the server's
        // TLS close of that connection unanswered, so the server's shutdown waits out NIOSSL's 5 s
        // close timeout here; curl answers it at once.)
        try await herald.stop()
        try await client.shutdown()
    }

    @Test func realmsStillApplyOverHTTP2() async throws {
        let certificates = try Certificates()
        let yaml = """
            server:
              http: {tls: \(certificates.yaml)}
              auth:
                app: {password: pw, realms: [register]}

            """
        try await withHerald(yaml: yaml) { herald in
            try await withClient(certificates) { client in
                let url = "https://localhost:\(herald.port)/subscribers"
                let form = "proto=http&token=http%3A%2F%2Fexample.com%2Fhook"
                let refused = try await send(client, url, method: .POST, form: form)
                #expect(refused.status == 401)
                #expect(refused.version == .http2)
                let basic = "Basic " + Data("app:pw".utf8).base64EncodedString()
                let accepted = try await send(client, url, method: .POST, form: form, headers: [("Authorization", basic)])
                #expect(accepted.status == 201)
            }
        }
    }

    @Test func anEncryptedKeyWithItsPasswordFileIsServed() async throws {
        let certificates = try Certificates()
        let passwordFile = certificates.directory + "/key-password"
        try "correct horse\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try certificates.issued.write(certificateFile: certificates.certificateFile, keyFile: certificates.keyFile, password: "correct horse")
        let yaml = """
            server:
              http:
                tls: {cert_file: \(certificates.certificateFile), key_file: \(certificates.keyFile), key_password_file: \(passwordFile)}

            """
        try await withHerald(yaml: yaml) { herald in
            let probe = try await TLSProbe.connect(
                port: herald.port, configuration: try certificates.authority.clientTLSConfiguration(applicationProtocols: ["http/1.1"]))
            #expect(probe.peerCertificateDER == certificates.issued.certificateDER)
            #expect(try await probe.get("/status") == 204)
            await probe.close()
        }
    }

    @Test func theApnsMSPortServesHTTPSWithItsOwnTLSSection() async throws {
        let certificates = try Certificates()
        try await withAPNsHerald(extra: "compat:\n  apns_ms: {provider: apns, tls: \(certificates.yaml)}\n") { herald, _ in
            let port = try #require(herald.frontEndPorts["apns_ms"])
            try await withClient(certificates, http1Only: true) { client in
                let answer = try await send(client, "https://localhost:\(port)/expired-devices")
                #expect(answer.status == 200)
                #expect(answer.body == #"{"devices":[]}"#)
            }
            let probe = try await TLSProbe.connect(port: port, configuration: try certificates.authority.clientTLSConfiguration(applicationProtocols: ["h2", "http/1.1"]))
            #expect(probe.peerCertificateDER == certificates.issued.certificateDER)
            await probe.close()
            // The main port stays plain HTTP: only apns_ms has a tls section.
            #expect(try await herald.request(.GET, "/status").status == 204)
        }
    }
}
