import Foundation
import HeraldCore
import HeraldFCM
import HeraldHTTP2
import HeraldSimulators
import HTTPTypes
import Logging
import NIOCore
import Testing

/// The simulator's own rules, spoken to over TLS and HTTP/2 without the provider: the OAuth endpoint's checks and
/// FCM's message validation with Google's error bodies (providers.md §2.2–2.6).
@Suite struct FCMSimulatorTests {
    /// A bare HTTP/2 client of the simulator.
    struct Client {
        let fixture: FCMFixture
        let pool: HTTP2ConnectionPool

        init(_ fixture: FCMFixture) throws {
            self.fixture = fixture
            let configuration = HTTP2ClientConfiguration(
                host: "127.0.0.1", port: fixture.simulator.port!, tls: try fixture.authority.clientTLSConfiguration())
            self.pool = HTTP2ConnectionPool(configuration: configuration, logger: Logger(label: "test.raw"))
        }

        func post(_ path: String, _ body: String, headers: [String: String] = [:]) async throws -> (status: Int, headers: HTTPFields, body: String) {
            var fields = HTTPFields()
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            let response = try await pool.execute(HTTP2Request(method: .post, path: path, headers: fields, body: ByteBuffer(string: body)))
            return (response.status, response.headers, String(buffer: response.body))
        }

        func exchange(_ assertion: String) async throws -> (status: Int, headers: HTTPFields, body: String) {
            try await post(
                "/token", "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)",
                headers: ["content-type": "application/x-www-form-urlencoded"])
        }

        func assertion(audience: String? = nil, issuedAt: Date = Date(), account: FCMTestServiceAccount = FCMFixture.account) async throws -> String {
            let serviceAccount = try FCMServiceAccount(json: account.json(tokenURI: fixture.simulator.tokenURL!), keyPath: "k")
            return try await FCMAssertionSigner(account: serviceAccount, audience: audience ?? serviceAccount.tokenURI).assertion(issuedAt: issuedAt)
        }

        func accessToken() async throws -> String {
            let answer = try await exchange(try await assertion())
            let document = try JSONBodyParser.parse(answer.body)
            return try #require(document["access_token"]?.scalarText)
        }

        func send(_ body: String, project: String = "herald-test", accessToken: String?) async throws -> (status: Int, headers: HTTPFields, body: String) {
            var headers = ["content-type": "application/json"]
            if let accessToken { headers["authorization"] = "Bearer \(accessToken)" }
            return try await post("/v1/projects/\(project)/messages:send", body, headers: headers)
        }
    }

    private func withClient(_ body: (Client) async throws -> Void) async throws {
        let fixture = try await FCMFixture.start()
        let client = try Client(fixture)
        do {
            try await body(client)
        } catch {
            await client.pool.shutdown()
            await fixture.stop()
            throw error
        }
        await client.pool.shutdown()
        await fixture.stop()
    }

    // MARK: Token endpoint

    @Test func issuesBearerTokensForValidAssertions() async throws {
        try await withClient { client in
            // Google's constant audience is accepted as well as the endpoint's own URL.
            for audience in [nil, "https://oauth2.googleapis.com/token"] {
                let answer = try await client.exchange(try await client.assertion(audience: audience))
                #expect(answer.status == 200)
                let document = try JSONBodyParser.parse(answer.body)
                #expect(document["access_token"]?.scalarText?.hasPrefix("ya29.") == true)
                #expect(document["expires_in"] == .number("3599"))
                #expect(document["token_type"] == .string("Bearer"))
            }
            #expect(client.fixture.simulator.tokenExchangeCount == 2)
        }
    }

    @Test func refusesBadGrantsAsGoogleDoes() async throws {
        try await withClient { client in
            let missing = try await client.post("/token", "assertion=x", headers: ["content-type": "application/x-www-form-urlencoded"])
            #expect(missing.status == 400)
            #expect(missing.body == #"{"error":"invalid_request","error_description":"Missing required parameter: grant_type"}"#)

            let wrongGrant = try await client.post("/token", "grant_type=client_credentials&assertion=x")
            #expect(wrongGrant.status == 400)
            #expect(wrongGrant.body.contains(#""error":"unsupported_grant_type""#))

            let audience = try await client.exchange(try await client.assertion(audience: "https://elsewhere.example/token"))
            #expect(audience.status == 400)
            #expect(audience.body.contains("Failed audience check"))

            let old = try await client.exchange(try await client.assertion(issuedAt: Date().addingTimeInterval(-7200)))
            #expect(old.status == 400)
            #expect(old.body.contains("Token must be a short-lived token (60 minutes)"))

            // The stranger's key under the known account's identity: the signature does not verify.
            let forged = FCMTestServiceAccountForgery.json(identity: FCMFixture.account, key: FCMFixture.strangerAccount, tokenURI: client.fixture.simulator.tokenURL!)
            let signer = await FCMAssertionSigner(account: try FCMServiceAccount(json: forged, keyPath: "k"), audience: client.fixture.simulator.tokenURL!)
            let signature = try await client.exchange(try await signer.assertion())
            #expect(signature.status == 400)
            #expect(signature.body == #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)

            let stranger = try await client.exchange(try await client.assertion(account: FCMFixture.strangerAccount))
            #expect(stranger.body.contains("account not found"))

            #expect(client.fixture.simulator.tokenExchangeCount == 0)
            #expect(client.fixture.simulator.statistics().tokenRejections["invalid_grant"] == 4)
        }
    }

    // MARK: messages:send

    @Test func authenticationComesFirst() async throws {
        try await withClient { client in
            let body = #"{"message":{"token":"\#(FCMFixture.token(1))","data":{"a":"b"}}}"#
            let anonymous = try await client.send(body, accessToken: nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.body.contains(#""status":"UNAUTHENTICATED""#))
            #expect(anonymous.headers[HTTPField.Name("www-authenticate")!]?.hasPrefix("Bearer") == true)
            #expect(try await client.send(body, accessToken: "ya29.forged").status == 401)

            let token = try await client.accessToken()
            let otherProject = try await client.send(body, project: "someone-else", accessToken: token)
            #expect(otherProject.status == 403)
            #expect(otherProject.body.contains(#""status":"PERMISSION_DENIED""#))

            let accepted = try await client.send(body, accessToken: token)
            #expect(accepted.status == 200)
            #expect(accepted.body.hasPrefix(#"{"name":"projects/herald-test/messages/"#))
        }
    }

    @Test func bothFieldNameStylesAndValidateOnlyAreAccepted() async throws {
        try await withClient { client in
            let token = try await client.accessToken()
            let body = #"{"validateOnly":true,"message":{"token":"\#(FCMFixture.token(1))","android":{"collapseKey":"k","ttl":"3.5s","priority":"HIGH","directBootOk":true},"fcmOptions":{"analytics_label":"x"}}}"#
            let answer = try await client.send(body, accessToken: token)
            #expect(answer.status == 200)
            #expect(answer.body == #"{"name":"projects/herald-test/messages/fake_message_id"}"#)
            let topic = try await client.send(#"{"message":{"topic":"weather","notification":{"title":"t","body":"b"}}}"#, accessToken: token)
            #expect(topic.status == 200)
            #expect(client.fixture.simulator.acceptedTokens().isEmpty)
        }
    }

    @Test(arguments: [
        (#"{"message":{"token":"TOKEN","data":{"n":12}}}"#, "Invalid value at 'message.data[0].value' (TYPE_STRING), 12"),
        (#"{"message":{"token":"TOKEN","data":{"from":"x"}}}"#, "Invalid data payload key: from"),
        (#"{"message":{"token":"TOKEN","data":{"google.x":"x"}}}"#, "Invalid data payload key: google.x"),
        (#"{"message":{"token":"TOKEN","topic":"t"}}"#, "Recipient of the message is not set."),
        (#"{"message":{"data":{"a":"b"}}}"#, "Recipient of the message is not set."),
        (#"{"message":{"token":"TOKEN","android":{"ttl":"10"}}}"#, #"Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"10\""#),
        (#"{"message":{"token":"TOKEN","android":{"ttl":"2419201s"}}}"#, "must be between 0 and 2419200 seconds"),
        (#"{"message":{"token":"TOKEN","android":{"priority":"urgent"}}}"#, "message.android.priority"),
        (#"{"message":{"token":"TOKEN","colour":"red"}}"#, #"Unknown name \"colour\" at 'message': Cannot find field."#),
        (#"{"message":{"token":"abc"}}"#, "The registration token is not a valid FCM registration token"),
        (#"{"message":"#, "Invalid JSON payload received."),
    ])
    func invalidMessagesAreRefusedWithInvalidArgument(body: String, message: String) async throws {
        try await withClient { client in
            let answer = try await client.send(body.replacingOccurrences(of: "TOKEN", with: FCMFixture.token(1)), accessToken: try await client.accessToken())
            #expect(answer.status == 400)
            #expect(answer.body.contains(#""status":"INVALID_ARGUMENT""#))
            #expect(answer.body.contains(message), "\(answer.body)")
            #expect(client.fixture.simulator.acceptedCount == 0)
        }
    }

    @Test func messagesOverFourKilobytesAreTooBig() async throws {
        try await withClient { client in
            let token = try await client.accessToken()
            let fits = try await client.send(#"{"message":{"token":"\#(FCMFixture.token(1))","data":{"k":"\#(String(repeating: "x", count: 4095))"}}}"#, accessToken: token)
            #expect(fits.status == 200)
            let tooBig = try await client.send(#"{"message":{"token":"\#(FCMFixture.token(1))","data":{"k":"\#(String(repeating: "x", count: 4096))"}}}"#, accessToken: token)
            #expect(tooBig.status == 400)
            #expect(tooBig.body == #"{"error":{"code":400,"message":"Message is too big","status":"INVALID_ARGUMENT"}}"#)
        }
    }

    @Test func unregisteredTokensGetTheFcmErrorDetail() async throws {
        try await withClient { client in
            client.fixture.simulator.unregister(token: FCMFixture.token(1))
            let answer = try await client.send(#"{"message":{"token":"\#(FCMFixture.token(1))","data":{"a":"b"}}}"#, accessToken: try await client.accessToken())
            #expect(answer.status == 404)
            #expect(answer.body == #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#)
        }
    }

    @Test func unknownPathsGetGooglesNotFoundPage() async throws {
        try await withClient { client in
            let answer = try await client.post("/fcm/send", "{}")
            #expect(answer.status == 404)
            #expect(answer.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(client.fixture.simulator.requestCount == 0)
        }
    }

    @Test func randomFaultsFollowTheSeed() async throws {
        try await withClient { client in
            let token = try await client.accessToken()
            client.fixture.simulator.setFaults(.init(quotaExceededRate: 0.5, retryAfter: 3))
            var statuses: [Int] = []
            for _ in 0..<40 {
                statuses.append(try await client.send(#"{"message":{"token":"\#(FCMFixture.token(1))","data":{"a":"b"}}}"#, accessToken: token).status)
            }
            #expect(Set(statuses) == [200, 429])
            #expect(client.fixture.simulator.statistics().rejections["QUOTA_EXCEEDED"] == statuses.filter { $0 == 429 }.count)
        }
    }
}

/// A key file claiming one account's identity but holding another's key.
enum FCMTestServiceAccountForgery {
    static func json(identity: FCMTestServiceAccount, key: FCMTestServiceAccount, tokenURI: String) -> String {
        key.json(tokenURI: tokenURI)
            .replacingOccurrences(of: key.clientEmail, with: identity.clientEmail)
            .replacingOccurrences(of: key.privateKeyID, with: identity.privateKeyID)
    }
}
