import AsyncHTTPClient
import HeraldSimulators
import NIOCore
import Testing

/// What the legacy GCM simulator checks, seen through a plain HTTP client.
@Suite struct GCMLegacySimulatorTests {
    func post(_ client: HTTPClient, _ url: String, key: String?, contentType: String = "application/json", body: String) async throws
        -> (status: Int, body: String)
    {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        if let key { request.headers.add(name: "Authorization", value: "key=\(key)") }
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: .seconds(10))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test func requestsAreCheckedAsGCMChecksThem() async throws {
        try await GCMLegacyFixture.with { fixture in
            let tls = try fixture.authority.clientTLSConfiguration(applicationProtocols: ["http/1.1"])
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(tlsConfiguration: tls))
            let url = fixture.simulator.endpoint
            let key = GCMLegacyFixture.apiKey
            do {
                let unauthorized = try await post(client, url, key: "wrong", body: #"{"registration_ids":["a"]}"#)
                #expect(unauthorized.status == 401)
                #expect(unauthorized.body.contains("<TITLE>Unauthorized</TITLE>"))
                #expect(try await post(client, url, key: nil, body: #"{"registration_ids":["a"]}"#).status == 401)
                #expect(try await post(client, url, key: key, body: "{").body.hasPrefix("JSON_PARSING_ERROR"))
                #expect(try await post(client, url, key: key, contentType: "text/plain", body: "registration_id=a").status == 400)
                #expect(try await post(client, url, key: key, body: #"{"data":{}}"#).body == "Missing \"registration_ids\" field\n")
                let ids = (0...1000).map { "\"t\($0)\"" }.joined(separator: ",")
                let tooMany = try await post(client, url, key: key, body: #"{"registration_ids":[\#(ids)]}"#)
                #expect(tooMany.status == 400)
                #expect(tooMany.body == "Number of messages on bulk (1001) exceeds maximum allowed (1000)\n")

                let reserved = try await post(client, url, key: key, body: #"{"registration_ids":["a","b"],"data":{"from":"x"}}"#)
                #expect(reserved.status == 200)
                #expect(reserved.body.hasSuffix(#""success":0,"failure":2,"canonical_ids":0,"results":[{"error":"InvalidDataKey"},{"error":"InvalidDataKey"}]}"#))
                let big = String(repeating: "x", count: 4096)
                let tooBig = try await post(client, url, key: key, body: #"{"to":"a","data":{"k":"\#(big)"}}"#)
                #expect(tooBig.body.contains(#"{"error":"MessageTooBig"}"#))
                let ttl = try await post(client, url, key: key, body: #"{"to":"a","time_to_live":2419201}"#)
                #expect(ttl.body.contains(#"{"error":"InvalidTtl"}"#))
                fixture.simulator.setState(.canonical("b2"), of: "b")
                let fine = try await post(client, url, key: key, body: #"{"registration_ids":["a","b"],"data":{"k":1}}"#)
                #expect(fine.status == 200)
                #expect(fine.body.contains(#""success":2,"failure":0,"canonical_ids":1,"results":[{"message_id":"0:"#))
                #expect(fine.body.contains(#","registration_id":"b2"}]}"#))
                #expect(fixture.simulator.deliveries(to: "a") == 1)
                #expect(fixture.simulator.statistics().requests == 10)
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
}
