import AsyncHTTPClient
import HeraldSimulators
import NIOCore
import Testing

/// What the WNS simulator checks, seen through a plain HTTP client: it answers as WNS does.
@Suite struct WNSSimulatorTests {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    func post(
        _ client: HTTPClient, _ url: String, headers: [(String, String)], body: String
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), headers: fields, body: String(buffer: bytes))
    }

    /// Runs `body` with a simulator, a client trusting its CA and a valid access token.
    func withSimulator(_ body: (WNSSimulator, HTTPClient, String) async throws -> Void) async throws {
        try await WNSFixture.with { fixture in
            let tls = try fixture.directory.authority.clientTLSConfiguration(applicationProtocols: ["http/1.1"])
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(tlsConfiguration: tls))
            do {
                let form = "grant_type=client_credentials&client_id=ms-app%3A%2F%2Fs-1-15-2-1234567890&client_secret=\(WNSFixture.clientSecret)&scope=notify.windows.com"
                let answer = try await post(
                    client, fixture.simulator.tokenEndpoint, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
                #expect(answer.status == 200)
                #expect(answer.headers["cache-control"] == "no-store")
                let token = try #require(answer.body.split(separator: "\"").dropFirst(3).first.map(String.init))
                #expect(answer.body.hasSuffix(#""token_type":"bearer","expires_in":86400}"#))
                try await body(fixture.simulator, client, token)
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    @Test func theTokenEndpointRefusesWhatLoginLiveRefuses() async throws {
        try await withSimulator { simulator, client, _ in
            let form = "application/x-www-form-urlencoded"
            let secret = WNSFixture.clientSecret
            let cases: [(String, String, String)] = [
                (form, "grant_type=password&client_id=ms-app%3A%2F%2Fs-1-15-2-1234567890&client_secret=\(secret)&scope=notify.windows.com", "unsupported_grant_type"),
                (form, "grant_type=client_credentials&client_id=other&client_secret=\(secret)&scope=notify.windows.com", "invalid_client"),
                (form, "grant_type=client_credentials&client_id=ms-app%3A%2F%2Fs-1-15-2-1234567890&client_secret=x&scope=notify.windows.com", "invalid_client"),
                (form, "grant_type=client_credentials&client_id=ms-app%3A%2F%2Fs-1-15-2-1234567890&client_secret=\(secret)&scope=wns", "invalid_scope"),
                ("application/json", "{}", "invalid_request"),
            ]
            for (contentType, body, error) in cases {
                let answer = try await post(client, simulator.tokenEndpoint, headers: [("Content-Type", contentType)], body: body)
                #expect(answer.status == 400)
                #expect(answer.body.hasPrefix(#"{"error":"\#(error)","#), "\(body)")
            }
        }
    }

    @Test func notificationsAreCheckedAsWNSChecksThem() async throws {
        try await withSimulator { simulator, client, token in
            let channel = simulator.makeChannel()
            let toast = #"<toast><visual><binding template="ToastGeneric"><text>Hi</text></binding></visual></toast>"#
            let bearer = ("Authorization", "Bearer \(token)")
            let cases: [([(String, String)], String, Int, String)] = [
                ([("X-WNS-Type", "wns/toast"), ("Content-Type", "text/xml")], toast, 401, "Missing bearer token"),
                ([("Authorization", "Bearer forged"), ("X-WNS-Type", "wns/toast"), ("Content-Type", "text/xml")], toast, 401, "Invalid token"),
                ([bearer, ("Content-Type", "text/xml")], toast, 400, "The X-WNS-Type header is missing"),
                ([bearer, ("X-WNS-Type", "wns/popup"), ("Content-Type", "text/xml")], toast, 400, "The X-WNS-Type header is not valid"),
                ([bearer, ("X-WNS-Type", "wns/raw"), ("Content-Type", "text/xml")], toast, 400, "The Content-Type must be application/octet-stream for wns/raw"),
                ([bearer, ("X-WNS-Type", "wns/toast"), ("Content-Type", "application/json")], toast, 400, "The Content-Type must be text/xml for wns/toast"),
                ([bearer, ("X-WNS-Type", "wns/toast"), ("Content-Type", "text/xml")], "<toast><visual>", 400, ""),
                ([bearer, ("X-WNS-Type", "wns/tile"), ("Content-Type", "text/xml")], toast, 400, "The root element must be <tile> for wns/tile"),
                ([bearer, ("X-WNS-Type", "wns/badge"), ("Content-Type", "text/xml")], #"<badge value="lots"/>"#, 400, "The badge value is not valid"),
                ([bearer, ("X-WNS-Type", "wns/toast"), ("Content-Type", "text/xml"), ("X-WNS-Tag", "this-tag-is-far-too-long")], toast, 400, "The X-WNS-Tag header is not valid"),
                ([bearer, ("X-WNS-Type", "wns/toast"), ("Content-Type", "text/xml"), ("X-WNS-TTL", "soon")], toast, 400, "The X-WNS-TTL header is not valid"),
                ([bearer, ("X-WNS-Type", "wns/raw"), ("Content-Type", "application/octet-stream")], String(repeating: "x", count: 5001), 413, ""),
            ]
            for (headers, body, status, description) in cases {
                let answer = try await post(client, channel, headers: headers, body: body)
                #expect(answer.status == status, "\(headers)")
                #expect(answer.headers["x-wns-msg-id"]?.count == 16)
                if !description.isEmpty { #expect(answer.headers["x-wns-error-description"] == description) }
            }
            let unknown = try await post(client, channel + "0", headers: [bearer, ("X-WNS-Type", "wns/toast"), ("Content-Type", "text/xml")], body: toast)
            #expect(unknown.status == 404)
            #expect(simulator.statistics().accepted == 0)

            let accepted = try await post(
                client, channel,
                headers: [bearer, ("X-WNS-Type", "wns/toast"), ("Content-Type", "text/xml; charset=utf-8"), ("X-WNS-RequestForStatus", "true")],
                body: toast)
            #expect(accepted.status == 200)
            #expect(accepted.headers["x-wns-status"] == "received")
            #expect(accepted.headers["x-wns-notificationstatus"] == "received")
            #expect(accepted.headers["x-wns-deviceconnectionstatus"] == "connected")
            #expect(simulator.accepted(channel: channel).map(\.body) == [toast])
        }
    }

    @Test func randomFaultsReplayFromTheSeed() async throws {
        var runs: [[Int]] = []
        for _ in 0..<2 {
            try await withSimulator { simulator, client, token in
                simulator.setFaults(.init(internalServerErrorRate: 0.3, throttleRate: 0.2, retryAfter: 1))
                let channel = simulator.makeChannel()
                var statuses: [Int] = []
                for _ in 0..<12 {
                    let answer = try await post(
                        client, channel, headers: [("Authorization", "Bearer \(token)"), ("X-WNS-Type", "wns/raw"), ("Content-Type", "application/octet-stream")],
                        body: "{}")
                    statuses.append(answer.status)
                }
                runs.append(statuses)
            }
        }
        #expect(runs[0] == runs[1])
        #expect(Set(runs[0]).isSubset(of: [200, 406, 500]))
        #expect(runs[0].contains(200) && runs[0].contains { $0 != 200 })
    }
}
