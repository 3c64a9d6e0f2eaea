import HTTPTypes
import Logging
import NIOCore
import NIOSSL

@testable import HeraldHTTP2

/// Runs `body` against a fresh test server and a pool on `engine`, and shuts both down afterwards.
func withServerAndPool(
    engine: HTTP2Engine,
    server options: HeraldHTTP2TestServer.Options = .init(),
    logger: Logger = Logger(label: "herald.http2.test", factory: { _ in SwiftLogNoOpLogHandler() }),
    configure: (inout HTTP2ClientConfiguration) -> Void = { _ in },
    _ body: (HeraldHTTP2TestServer, HTTP2ConnectionPool) async throws -> Void
) async throws {
    let server = try await HeraldHTTP2TestServer.start(options: options)
    var configuration = HTTP2ClientConfiguration(host: "127.0.0.1", port: server.port, tls: nil)
    configuration.engine = engine
    // Deadlines in tests only guard against hangs.
    configuration.streamDeadline = .seconds(20)
    configure(&configuration)
    let pool = HTTP2ConnectionPool(configuration: configuration, logger: logger)
    do {
        try await body(server, pool)
    } catch {
        await pool.shutdown()
        try? await server.shutdown()
        throw error
    }
    await pool.shutdown()
    try await server.shutdown()
}

/// A request to the test server with a unique `x-request-id`.
func testRequest(_ path: String = "/ok", id: String, body: String = "") -> HTTP2Request {
    var headers = HTTPFields()
    headers[HTTPField.Name("x-request-id")!] = id
    return HTTP2Request(path: path, headers: headers, body: ByteBuffer(string: body))
}

/// The request's error, or `nil` if it succeeded.
func failure(of body: () async throws(HTTP2ClientError) -> HTTP2Response) async -> HTTP2ClientError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// Polls `condition` until it holds or `timeout` passes (a hang guard, not a timing assertion).
///
/// - Returns: Whether the condition held.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + timeout
    while clock.now < end {
        if condition() {
            return true
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
