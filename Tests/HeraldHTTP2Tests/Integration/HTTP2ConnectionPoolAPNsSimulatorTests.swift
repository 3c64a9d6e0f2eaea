import Crypto
import Foundation
import HTTPTypes
import HeraldSimulators
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import HeraldHTTP2

/// The pool against Herald's APNs simulator over real TLS + HTTP/2. The simulator is as strict as APNs and
/// Python h2: it announces one stream until a connection's first valid provider token, counts a raise only once the
/// client acknowledged it, and ends a connection that opens a stream over the limit with GOAWAY PROTOCOL_ERROR.
@Suite("HTTP2ConnectionPool against the APNs simulator", .timeLimit(.minutes(1)))
struct HTTP2ConnectionPoolAPNsSimulatorTests {
    private static let teamID = "TEAM123456"
    private static let keyID = "KEY1234567"
    private static let topic = "com.example.app"
    private static let silent = Logger(label: "herald.http2.test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// All requests of the burst are submitted at once, so they all wait for the first connection's SETTINGS: with
    /// one connection they go one at a time until the raise; with four, the pool grows to four in one step when the
    /// first connection reports its limit of 1. Either way a connection torn down for exceeding the limit would show
    /// as a violation, a GOAWAY and one connection more than expected.
    @Test(
        "a burst of 50 on a fresh pool keeps to one stream until the raise: all delivered, no GOAWAY, no reconnect",
        arguments: HTTP2Engine.allCases, [1, 4]
    )
    func burstOnAFreshPool(engine: HTTP2Engine, maxConnections: Int) async throws {
        let authority = try SimulatorCertificateAuthority()
        let key = P256.Signing.PrivateKey()
        var configuration = APNsSimulator.Configuration(
            teamID: Self.teamID,
            signingKeys: [Self.keyID: key.publicKey],
            topics: [Self.topic],
            certificateAuthority: authority
        )
        configuration.logger = Self.silent
        let simulator = APNsSimulator(configuration: configuration)
        let port = try await simulator.start()

        var poolConfiguration = HTTP2ClientConfiguration(host: "127.0.0.1", port: port, tls: try authority.clientTLSConfiguration())
        poolConfiguration.serverHostname = "localhost"
        poolConfiguration.engine = engine
        poolConfiguration.maxConnections = maxConnections
        // Deadlines in tests only guard against hangs.
        poolConfiguration.streamDeadline = .seconds(20)
        let pool = HTTP2ConnectionPool(configuration: poolConfiguration, logger: Self.silent)

        do {
            let providerToken = try Self.providerToken(signedWith: key)
            let requests = (0..<50).map { Self.push(to: Self.deviceToken($0), providerToken: providerToken) }
            let statuses = NIOLockedValueBox<[Int: Int]>([:])
            await pool.execute(requests, maxConcurrent: requests.count) { index, result in
                statuses.withLockedValue { $0[index] = (try? result.get())?.status ?? -1 }
            }
            let answered = statuses.withLockedValue { $0 }
            #expect(answered.count == 50)
            #expect(answered.filter { $0.value != 200 }.keys.sorted() == [], "requests not answered 200")

            // A hang guard: the connections the pool opened may still be finishing their handshakes.
            _ = try await eventually { pool.statistics.openConnections >= maxConnections }
            let poolStatistics = pool.statistics
            #expect(poolStatistics.openConnections == maxConnections)
            #expect(poolStatistics.drainingConnections == 0)
            #expect(poolStatistics.consecutiveConnectFailures == 0)

            let statistics = simulator.statistics()
            #expect(statistics.accepted == 50)
            #expect(statistics.maxConcurrentStreamsViolations == 0)
            #expect(statistics.protocolErrors == 0)
            #expect(statistics.goAwaysSent == 0)
            #expect(statistics.connections == maxConnections, "a connection was torn down and replaced")
            #expect(statistics.maxConcurrentStreamsRaises >= 1)
            #expect(Set(simulator.acceptedTokens()).count == 50)
        } catch {
            await pool.shutdown()
            await simulator.stop()
            throw error
        }
        await pool.shutdown()
        await simulator.stop()
    }

    /// A distinct 64-hex-digit device token for each `index`.
    private static func deviceToken(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "ab" + String(repeating: "0", count: 62 - hex.count) + hex
    }

    /// An alert push to `deviceToken` with token authentication.
    private static func push(to deviceToken: String, providerToken: String) -> HTTP2Request {
        var headers = HTTPFields()
        headers[.authorization] = "bearer \(providerToken)"
        headers[HTTPField.Name("apns-topic")!] = Self.topic
        headers[HTTPField.Name("apns-push-type")!] = "alert"
        return HTTP2Request(
            path: "/3/device/\(deviceToken)",
            headers: headers,
            body: ByteBuffer(string: #"{"aps":{"alert":"hello"}}"#)
        )
    }

    /// An ES256 provider token for the team, as APNs expects it (raw `R‖S` signature, base64url without padding).
    private static func providerToken(signedWith key: P256.Signing.PrivateKey) throws -> String {
        let header = Self.base64URL(Data(#"{"alg":"ES256","kid":"\#(Self.keyID)"}"#.utf8))
        let claims = Self.base64URL(Data(#"{"iss":"\#(Self.teamID)","iat":\#(Int64(Date().timeIntervalSince1970))}"#.utf8))
        let signingInput = "\(header).\(claims)"
        let signature = try key.signature(for: Data(signingInput.utf8))
        return "\(signingInput).\(Self.base64URL(signature.rawRepresentation))"
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
