import Testing

@testable import HeraldHTTP2
import HeraldSimulators

@Suite("HTTP2ConnectionPool over TLS", .timeLimit(.minutes(1)))
struct HTTP2ConnectionPoolTLSTests {
    @Test("TLS with ALPN h2: concurrent requests succeed against a certificate from a generated CA", arguments: HTTP2Engine.allCases)
    func tls(engine: HTTP2Engine) async throws {
        let authority = try SimulatorCertificateAuthority()
        var options = HeraldHTTP2TestServer.Options()
        options.tls = try authority.serverTLSConfiguration()
        let client = try authority.clientTLSConfiguration()
        try await withServerAndPool(engine: engine, server: options) {
            $0.tls = client
            $0.serverHostname = "localhost"
        } _: { server, pool in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let response = try await pool.execute(testRequest(id: "t\(index)", body: "secret \(index)"))
                        #expect(response.status == 200)
                        #expect(String(buffer: response.body) == "secret \(index)")
                    }
                }
                try await group.waitForAll()
            }
            #expect(server.statistics.processed.count == 200)
        }
    }

    @Test("a server that does not select ALPN h2 is refused with connectFailed", arguments: HTTP2Engine.allCases)
    func alpnMismatch(engine: HTTP2Engine) async throws {
        let authority = try SimulatorCertificateAuthority()
        var options = HeraldHTTP2TestServer.Options()
        options.tls = try authority.serverTLSConfiguration(applicationProtocols: ["http/1.1"])
        let client = try authority.clientTLSConfiguration()
        try await withServerAndPool(engine: engine, server: options) {
            $0.tls = client
            $0.serverHostname = "localhost"
        } _: { server, pool in
            let error = await failure { () async throws(HTTP2ClientError) in
                try await pool.execute(testRequest(id: "alpn"), deadline: .seconds(30))
            }
            #expect(error?.kind == .connectFailed)
            #expect(error?.reason.contains("ALPN") == true)
            #expect(server.statistics.requestsReceived == 0)
        }
    }

    @Test("an untrusted server certificate is refused with connectFailed", arguments: HTTP2Engine.allCases)
    func untrusted(engine: HTTP2Engine) async throws {
        let authority = try SimulatorCertificateAuthority()
        let stranger = try SimulatorCertificateAuthority()
        var options = HeraldHTTP2TestServer.Options()
        options.tls = try authority.serverTLSConfiguration()
        let client = try stranger.clientTLSConfiguration()
        try await withServerAndPool(engine: engine, server: options) {
            $0.tls = client
            $0.serverHostname = "localhost"
        } _: { server, pool in
            let error = await failure { () async throws(HTTP2ClientError) in
                try await pool.execute(testRequest(id: "mitm"), deadline: .seconds(30))
            }
            #expect(error?.kind == .connectFailed)
            #expect(server.statistics.requestsReceived == 0)
        }
    }
}
