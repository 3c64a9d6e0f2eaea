import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldSimulators
import NIOCore
import Synchronization
import Testing

/// The simulator's own rules, spoken to over TLS without the provider: Huawei's OAuth endpoint and Push Kit's
/// checks, codes and answers.
@Suite struct HMSSimulatorTests {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String

        /// The answer's `code`, if it is Push Kit's JSON.
        var code: String? { (try? JSONBodyParser.parse(body))?["code"]?.scalarText }
        /// The answer's `msg`.
        var msg: String? { (try? JSONBodyParser.parse(body))?["msg"]?.scalarText }
    }

    /// A plain HTTPS client of a running simulator.
    struct Client {
        let fixture: HMSFixture
        let http: HTTPClient

        func post(_ url: String, _ body: String, headers: [(String, String)]) async throws -> Answer {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(ByteBuffer(string: body))
            let response = try await http.execute(request, timeout: .seconds(10))
            let bytes = try await response.body.collect(upTo: 1 << 22)
            var fields: [String: String] = [:]
            for header in response.headers { fields[header.name.lowercased()] = header.value }
            return Answer(status: Int(response.status.code), headers: fields, body: String(buffer: bytes))
        }

        func requestToken(_ form: String) async throws -> Answer {
            try await post(fixture.simulator.tokenEndpoint, form, headers: [("Content-Type", "application/x-www-form-urlencoded")])
        }

        func accessToken() async throws -> String {
            let answer = try await requestToken(
                "grant_type=client_credentials&client_id=\(HMSFixture.clientID)&client_secret=\(HMSFixture.clientSecret)")
            return try #require(try JSONBodyParser.parse(answer.body)["access_token"]?.scalarText)
        }

        func send(_ body: String, app: String = HMSFixture.clientID, accessToken: String?) async throws -> Answer {
            var headers = [("Content-Type", "application/json;charset=utf-8")]
            if let accessToken { headers.append(("Authorization", "Bearer \(accessToken)")) }
            return try await post(fixture.simulator.endpoint + "/v1/\(app)/messages:send", body, headers: headers)
        }
    }

    private func withClient(configure: (inout HMSSimulator.Configuration) -> Void = { _ in }, _ body: (Client) async throws -> Void) async throws {
        try await HMSFixture.with(configure: configure) { fixture in
            let tls = try fixture.authority.clientTLSConfiguration(applicationProtocols: ["http/1.1"])
            let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(tlsConfiguration: tls))
            do {
                try await body(Client(fixture: fixture, http: http))
            } catch {
                try? await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    private static let token = HMSFixture.token(1)

    private static func message(_ members: String, tokens: [String] = [token]) -> String {
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"validate_only":false,"message":{"token":[\#(list)]\#(members.isEmpty ? "" : "," + members)}}"#
    }

    // MARK: Token endpoint

    @Test func issuesBearerTokensForTheAppsCredentials() async throws {
        try await withClient { client in
            let answer = try await client.requestToken(
                "grant_type=client_credentials&client_id=\(HMSFixture.clientID)&client_secret=\(HMSFixture.clientSecret)")
            #expect(answer.status == 200)
            #expect(answer.body.contains(#"\/"#), "Huawei's JSON writes the token's slash escaped")
            let document = try JSONBodyParser.parse(answer.body)
            #expect(document["access_token"]?.scalarText?.hasPrefix("CgB6e3x9") == true)
            #expect(document["expires_in"] == .number("3600"))
            #expect(document["token_type"] == .string("Bearer"))
            #expect(client.fixture.simulator.tokenExchangeCount == 1)
        }
    }

    @Test func refusesBadGrantsAsHuaweiDoes() async throws {
        try await withClient { client in
            let id = HMSFixture.clientID
            let cases: [(String, String)] = [
                ("grant_type=client_credentials&client_id=\(id)&client_secret=wrong", "invalid client_secret"),
                ("grant_type=client_credentials&client_id=999&client_secret=\(HMSFixture.clientSecret)", "invalid client_id"),
                ("grant_type=password&client_id=\(id)&client_secret=\(HMSFixture.clientSecret)", "unsupported grant_type"),
                ("client_id=\(id)&client_secret=\(HMSFixture.clientSecret)", "missing required param: grant_type"),
            ]
            for (form, description) in cases {
                let answer = try await client.requestToken(form)
                #expect(answer.status == 400)
                let document = try JSONBodyParser.parse(answer.body)
                #expect(document["error_description"] == .string(description), "\(form)")
                #expect(document["error"]?.scalarText?.hasPrefix("110") == true)
            }
            let secret = try await client.requestToken("grant_type=client_credentials&client_id=\(id)&client_secret=wrong")
            #expect(secret.body == #"{"sub_error":20152,"error_description":"invalid client_secret","error":1101}"#)
            #expect(client.fixture.simulator.tokenExchangeCount == 0)
            #expect(client.fixture.simulator.statistics().tokenRejections["invalid client_secret"] == 2)
        }
    }

    // MARK: messages:send

    @Test func authenticationComesFirst() async throws {
        try await withClient { client in
            let body = Self.message(#""data":"x""#)
            let anonymous = try await client.send(body, accessToken: nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.code == "80200001")
            #expect(try await client.send(body, accessToken: "CgB6forged").code == "80200001")

            let token = try await client.accessToken()
            let otherApp = try await client.send(body, app: "999999", accessToken: token)
            #expect(otherApp.code == "80200001", "a token works only for the app it was issued to")

            let accepted = try await client.send(body, accessToken: token)
            #expect(accepted.status == 200)
            #expect(accepted.code == "80000000")
            #expect(accepted.msg == "Success")
            #expect(try JSONBodyParser.parse(accepted.body)["requestId"]?.scalarText?.isEmpty == false)

            client.fixture.simulator.expireAccessTokens()
            let expired = try await client.send(body, accessToken: token)
            #expect(expired.status == 401)
            #expect(expired.code == "80200003")
        }
    }

    @Test func theMessageIsCheckedAsPushKitChecksIt() async throws {
        try await withClient { client in
            let token = try await client.accessToken()
            let notification = #""android":{"notification":{"title":"t","body":"b","click_action":{"type":3}}}"#
            #expect(try await client.send(Self.message(notification), accessToken: token).code == "80000000")
            let cases: [(String, String)] = [
                ("not json", "80100003"),
                (#"{"validate_only":false}"#, "80100003"),
                (#"{"message":{"data":"x"}}"#, "80100001"),
                (#"{"message":{"token":["\#(Self.token)"],"topic":"news","data":"x"}}"#, "80100001"),
                (#"{"message":{"token":"\#(Self.token)","data":"x"}}"#, "80100001"),
                (#"{"message":{"token":[],"data":"x"}}"#, "80300010"),
                (Self.message(#""data":{"k":"v"}"#), "80100001"),
                (Self.message(#""android":{"collapse_key":101}"#), "80100001"),
                (Self.message(#""android":{"urgency":"high"}"#), "80100001"),
                (Self.message(#""android":{"ttl":"one day"}"#), "80100001"),
                (Self.message(#""android":{"notification":{"title":"t","body":"b"}}"#), "80100001"),
                (Self.message(#""android":{"notification":{"title":"t","click_action":{"type":1}}}"#), "80100001"),
                (Self.message(#""android":{"notification":{"click_action":{"type":3}}}"#), "80100001"),
                (Self.message(#""android":{"notification":{"body":"b","click_action":{"type":3},"badge":{"set_num":1}}}"#), "80100003"),
                (Self.message(#""android":{"notification":{"body":"b","click_action":{"type":3},"badge":{"add_num":100,"class":"c"}}}"#), "80100003"),
            ]
            for (body, code) in cases {
                let answer = try await client.send(body, accessToken: token)
                #expect(answer.status == 400, "\(body)")
                #expect(answer.code == code, "\(body): \(answer.body)")
            }
            #expect(client.fixture.simulator.acceptedCount == 1)
        }
    }

    @Test func theLimitsAreAThousandTokensAnd4096BytesOfMessage() async throws {
        try await withClient { client in
            let token = try await client.accessToken()
            // `{"data":"<n>"}` is n + 11 bytes, whatever the number of tokens.
            let tokens = (0..<1000).map(HMSFixture.token)
            let fits = try await client.send(Self.message(#""data":"\#(String(repeating: "x", count: 4085))""#, tokens: tokens), accessToken: token)
            #expect(fits.code == "80000000")
            let tooBig = try await client.send(Self.message(#""data":"\#(String(repeating: "x", count: 4086))""#), accessToken: token)
            #expect(tooBig.status == 400)
            #expect(tooBig.code == "80300008")
            let tooMany = try await client.send(Self.message(#""data":"x""#, tokens: tokens + [HMSFixture.token(1000)]), accessToken: token)
            #expect(tooMany.code == "80300010")
            #expect(client.fixture.simulator.statistics().delivered == 1000)
        }
    }

    @Test func illegalTokensMakeAPartialSuccessOr80300007() async throws {
        try await withClient { client in
            let token = try await client.accessToken()
            let good = HMSFixture.token(1)
            let gone = HMSFixture.token(2)
            client.fixture.simulator.unregister(token: gone)

            let partial = try await client.send(Self.message(#""data":"x""#, tokens: [good, gone, "short"]), accessToken: token)
            #expect(partial.status == 200)
            #expect(partial.code == "80100000")
            #expect(partial.msg == #"{"success":1,"failure":2,"illegal_tokens":["\#(gone)","short"]}"#)

            let all = try await client.send(Self.message(#""data":"x""#, tokens: [gone]), accessToken: token)
            #expect(all.status == 400)
            #expect(all.code == "80300007")

            client.fixture.simulator.restore(token: gone)
            #expect(try await client.send(Self.message(#""data":"x""#, tokens: [gone]), accessToken: token).code == "80000000")
            let statistics = client.fixture.simulator.statistics()
            #expect(statistics.illegalTokens == 3)
            #expect(statistics.delivered == 2)
            #expect(statistics.rejections["80300007"] == 1)
            #expect(client.fixture.simulator.acceptedTokens() == [good, gone])
        }
    }

    @Test func faultsComeFromTheScheduleAndTheSeededPlan() async throws {
        try await withClient { client in
            let token = try await client.accessToken()
            let body = Self.message(#""data":"x""#)
            client.fixture.simulator.inject(.internalError, atRequest: 2)
            client.fixture.simulator.injectNext([.flowControl(retryAfter: 4)])
            let flow = try await client.send(body, accessToken: token)
            #expect(flow.status == 503)
            #expect(flow.headers["retry-after"] == "4")
            #expect(flow.code == nil, "flow control answers without a code")
            let internalError = try await client.send(body, accessToken: token)
            #expect(internalError.status == 500)
            #expect(internalError.code == "81000001")
            #expect(try await client.send(body, accessToken: token).code == "80000000")

            client.fixture.simulator.setFaults(.init(internalErrorRate: 1))
            #expect(try await client.send(body, accessToken: token).code == "81000001")
            client.fixture.simulator.setFaults(.none)
            let statistics = client.fixture.simulator.statistics()
            #expect(statistics.requests == 4)
            #expect(statistics.rejections["HTTP 503"] == 1)
            #expect(statistics.rejections["81000001"] == 2)
        }
    }

    @Test func acceptedRequestsReachTheHook() async throws {
        let deliveries = DeliveryLog()
        try await withClient(configure: { $0.onAccepted = { deliveries.append($0) } }) { client in
            let token = try await client.accessToken()
            _ = try await client.send(Self.message(#""data":"hello""#), accessToken: token)
            let delivery = try #require(deliveries.all.first)
            #expect(delivery.service == "hms")
            #expect(delivery.recipients == [Self.token])
            #expect(delivery.fields.map { $0.name } == ["app", "delivered"])
            #expect(delivery.payload.contains("hello"))
            #expect(!delivery.payload.contains(HMSFixture.clientSecret))
        }
    }
}

/// What a simulator's `onAccepted` hook received, from its request threads.
final class DeliveryLog: Sendable {
    private let deliveries = Mutex<[SimulatorDelivery]>([])

    func append(_ delivery: SimulatorDelivery) {
        deliveries.withLock { $0.append(delivery) }
    }

    var all: [SimulatorDelivery] {
        deliveries.withLock { $0 }
    }
}
