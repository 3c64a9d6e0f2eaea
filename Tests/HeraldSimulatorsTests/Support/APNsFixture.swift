import AsyncHTTPClient
import Crypto
import Foundation
import HeraldSimulators
import JWTKit
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// A running APNs simulator with a CA, a provider key and an HTTP/2 client that trusts the CA.
struct APNsFixture: Sendable {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let otherKeyID = "KEY7654321"
    static let bundleID = "com.example.app"
    static let deviceToken = String(repeating: "ab", count: 32)
    static let alertBody = #"{"aps":{"alert":{"title":"Hi","body":"There"}}}"#

    let authority: SimulatorCertificateAuthority
    let signingKey: P256.Signing.PrivateKey
    let otherSigningKey: P256.Signing.PrivateKey
    let simulator: APNsSimulator
    let port: Int
    let client: HTTPClient
    /// A valid provider token for ``keyID``, minted once as a real client would.
    let providerToken: String

    /// Starts a simulator configured by `configure` and a client presenting `clientCertificateTopic`'s certificate
    /// when given, runs `body`, and tears both down whatever happens.
    static func with(
        configure: (inout APNsSimulator.Configuration) -> Void = { _ in },
        clientCertificateTopic: String? = nil,
        _ body: (APNsFixture) async throws -> Void
    ) async throws {
        let authority = try SimulatorCertificateAuthority()
        let signingKey = P256.Signing.PrivateKey()
        let otherSigningKey = P256.Signing.PrivateKey()
        var configuration = APNsSimulator.Configuration(
            teamID: Self.teamID,
            signingKeys: [Self.keyID: signingKey.publicKey, Self.otherKeyID: otherSigningKey.publicKey],
            topics: [Self.bundleID],
            certificateAuthority: authority
        )
        // Tests make hundreds of simulators; their start/stop lines would drown the test output.
        configuration.logger = Logger(label: "test.simulator.apns", factory: { _ in SwiftLogNoOpLogHandler() })
        configure(&configuration)
        let simulator = APNsSimulator(configuration: configuration)
        let port = try await simulator.start()

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates([try authority.caNIOSSLCertificate()])]
        if let topic = clientCertificateTopic {
            let certificate = try authority.issueClientCertificate(topic: topic, teamID: Self.teamID)
            tls.certificateChain = [
                .certificate(try NIOSSLCertificate(bytes: Array(certificate.certificatePEM.utf8), format: .pem))
            ]
            tls.privateKey = .privateKey(
                try NIOSSLPrivateKey(bytes: Array(certificate.privateKeyPEM.utf8), format: .pem))
        }
        var clientConfiguration = HTTPClient.Configuration(tlsConfiguration: tls)
        clientConfiguration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)

        let fixture = APNsFixture(
            authority: authority,
            signingKey: signingKey,
            otherSigningKey: otherSigningKey,
            simulator: simulator,
            port: port,
            client: client,
            providerToken: try await Self.mintToken(key: signingKey, keyID: Self.keyID)
        )
        do {
            try await body(fixture)
        } catch {
            try? await client.shutdown()
            await simulator.stop()
            throw error
        }
        try await client.shutdown()
        await simulator.stop()
    }

    /// A provider token signed by jwt-kit, as Herald would make one.
    static func mintToken(
        key: P256.Signing.PrivateKey,
        keyID: String,
        teamID: String = Self.teamID,
        issuedAt: Int64 = Int64(Date().timeIntervalSince1970)
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: keyID))
        return try await keys.sign(Claims(iss: teamID, iat: issuedAt), kid: JWKIdentifier(string: keyID))
    }

    /// A provider token assembled by hand, with the signature in the raw `R‖S` form or, wrongly, in DER.
    static func handMadeToken(key: P256.Signing.PrivateKey, keyID: String, derSignature: Bool) throws -> String {
        let header = base64URL(Data(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8))
        let claims = base64URL(Data(#"{"iss":"\#(teamID)","iat":\#(Int64(Date().timeIntervalSince1970))}"#.utf8))
        let signingInput = "\(header).\(claims)"
        let signature = try key.signature(for: Data(signingInput.utf8))
        return "\(signingInput).\(base64URL(derSignature ? signature.derRepresentation : signature.rawRepresentation))"
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The ordinary headers of a valid alert push with token authentication.
    var standardHeaders: [(String, String)] {
        [
            ("authorization", "bearer \(self.providerToken)"),
            ("apns-topic", Self.bundleID),
            ("apns-push-type", "alert"),
        ]
    }

    /// Sends one request; `headers` replace the standard ones entirely when given.
    func push(
        token: String = Self.deviceToken,
        path: String? = nil,
        method: HTTPMethod = .POST,
        headers: [(String, String)]? = nil,
        body: String? = Self.alertBody
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "https://127.0.0.1:\(self.port)\(path ?? "/3/device/\(token)")")
        request.method = method
        for (name, value) in headers ?? self.standardHeaders {
            request.headers.add(name: name, value: value)
        }
        if let body, method == .POST {
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await self.client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    /// `standardHeaders` with `name` set to `value` (or removed when `nil`).
    func headers(setting name: String, to value: String?) -> [(String, String)] {
        var headers = self.standardHeaders.filter { $0.0 != name }
        if let value {
            headers.append((name, value))
        }
        return headers
    }
}
