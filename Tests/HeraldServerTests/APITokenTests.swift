import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// API tokens (`Authorization: Bearer`, `/tokens`): issued, scoped to one app, revoked and expired,
/// through the HTTP API of a running server and a real webhook receiver.
@Suite struct APITokenTests {
    static let ops = [("Authorization", "Basic " + Data("ops:secret".utf8).base64EncodedString())]

    /// Two apps, each with its own webhook provider, and an operator with every realm.
    static let yaml = """
        server:
          auth:
            ops: {password: secret, realms: [register, publish, listen, admin]}
        providers:
          hooks-a: {kind: http}
          hooks-b: {kind: http}
        delivery:
          max_attempts: 1
        """

    static func bearer(_ secret: String) -> [(String, String)] { [("Authorization", "Bearer \(secret)")] }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Creates a token through `POST /tokens` as the operator; returns its secret.
    static func create(_ herald: TestHerald, _ json: String) async throws -> String {
        let response = try await herald.request(.POST, "/tokens", json: json, headers: ops)
        #expect(response.status == 201, "\(response.body)")
        let secret = try #require(try object(response.body)["token"] as? String)
        #expect(secret.hasPrefix("hld_") && secret.utf8.count == 47)
        return secret
    }

    static func app(_ name: String, provider: String) -> String {
        #"{"name":"\#(name)","realms":["register","publish","admin"],"providers":["\#(provider)"],"events":["chat.*"]}"#
    }

    @Test func twoAppsWithTheSameEventNamesReachOnlyTheirOwnSubscribers() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            try await withReceiver { receiver in
                let a = Self.bearer(try await Self.create(herald, Self.app("app-a", provider: "hooks-a")))
                let b = Self.bearer(try await Self.create(herald, Self.app("app-b", provider: "hooks-b")))
                func register(_ headers: [(String, String)], proto: String, path: String) async throws -> String {
                    let response = try await herald.request(
                        .POST, "/subscribers", form: "proto=\(proto)&token=\(Fixtures.formEncoded(receiver.url(path)))", headers: headers)
                    #expect(response.status == 201, "\(response.body)")
                    return try #require(try Self.object(response.body)["id"] as? String)
                }
                let ofA = try await register(a, proto: "hooks-a", path: "/a")
                let ofB = try await register(b, proto: "hooks-b", path: "/b")
                for (headers, id) in [(a, ofA), (b, ofB)] {
                    #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/chat.room", headers: headers).status == 201)
                }

                #expect(try await herald.request(.POST, "/event/chat.room", form: "msg=from-a", headers: a).status == 204)
                #expect(try await herald.request(.POST, "/event/chat.room", form: "msg=from-b", headers: b).status == 204)
                let received = try await receiver.waitFor(count: 2)
                #expect(Set(received.map { "\($0.path) \($0.body.contains("from-a") ? "a" : "b")" }) == ["/a a", "/b b"])
                // The operator's publish reaches both.
                #expect(try await herald.request(.POST, "/event/chat.room", form: "msg=from-ops", headers: Self.ops).status == 204)
                _ = try await receiver.waitFor(count: 4)
                #expect(receiver.count == 4, "nothing more than the four")
            }
        }
    }

    @Test func everyRouteRefusesWhatTheScopesExclude() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let a = Self.bearer(try await Self.create(herald, Self.app("app-a", provider: "hooks-a")))
            let registerOnly = Self.bearer(try await Self.create(herald, #"{"name":"devices","realms":["register"]}"#))
            let registered = try await herald.request(.POST, "/subscribers", form: "proto=hooks-b&token=https%3A%2F%2Fexample.com%2Fother", headers: Self.ops)
            let other = try #require(try Self.object(registered.body)["id"] as? String)
            _ = try await herald.request(.POST, "/subscriber/\(other)/subscriptions/chat.room", headers: Self.ops)
            #expect(try await herald.request(.POST, "/subscriber/\(other)/subscriptions/news", headers: Self.ops).status == 201)

            // Another provider is as if it were not configured; another app's subscriber as if absent.
            let foreign = try await herald.request(.POST, "/subscribers", form: "proto=hooks-b&token=https%3A%2F%2Fexample.com%2Fx", headers: a)
            #expect(foreign.status == 400)
            #expect(try Self.object(foreign.body)["error"] as? String == "Invalid value for `proto'")
            #expect(try await herald.request(.GET, "/subscriber/\(other)", headers: a).status == 404)
            #expect(try await herald.request(.POST, "/subscriber/\(other)", form: "lang=fr", headers: a).status == 404)
            #expect(try await herald.request(.DELETE, "/subscriber/\(other)", headers: a).status == 404)
            #expect(try await herald.request(.GET, "/subscriber/\(other)/subscriptions", headers: a).status == 404)
            #expect(try await herald.request(.DELETE, "/subscriber/\(other)/subscriptions/chat.room", headers: a).status == 404)
            #expect(try await herald.request(.POST, "/event/unicast:\(other)", form: "msg=x", headers: a).status == 404)
            #expect(try await herald.request(.GET, "/subscriber/\(other)", headers: Self.ops).status == 200, "still there")

            // Events its patterns do not name.
            let mine = try await herald.request(.POST, "/subscribers", form: "proto=hooks-a&token=https%3A%2F%2Fexample.com%2Fa", headers: a)
            let id = try #require(try Self.object(mine.body)["id"] as? String)
            let outside = try await herald.request(.POST, "/subscriber/\(id)/subscriptions/news", headers: a)
            #expect(outside.status == 403)
            #expect(try Self.object(outside.body)["error"] as? String == "The token does not cover the event news")
            #expect(try await herald.request(.POST, "/event/news", form: "msg=x", headers: a).status == 403)
            #expect(try await herald.request(.POST, "/event/broadcast", form: "msg=x", headers: a).status == 403)
            #expect(try await herald.request(.GET, "/event/news", headers: a).status == 404)
            let events = try #require(try JSONSerialization.jsonObject(with: Data(try await herald.request(.GET, "/events", headers: a).body.utf8)) as? [String])
            #expect(events == ["chat.room"], "only the events its patterns name")
            #expect(try await herald.request(.POST, "/send", json: #"{"proto":"hooks-b","tokens":["https://example.com/x"],"payload":{}}"#, headers: a).status == 400)

            // Admin: its own provider's feedback; not the node's metrics, the dashboard or tokens.
            #expect(try await herald.request(.GET, "/feedback", headers: a).status == 200)
            #expect(try await herald.request(.GET, "/feedback?provider=hooks-b", headers: a).status == 403)
            #expect(try await herald.request(.GET, "/dead-letters?provider=hooks-b", headers: a).status == 403)
            #expect(try await herald.request(.GET, "/metrics", headers: a).status == 403)
            #expect(try await herald.request(.GET, "/dashboard", headers: a).status == 403)
            #expect(try await herald.request(.GET, "/tokens", headers: a).status == 403)

            // Realms.
            #expect(try await herald.request(.POST, "/event/chat.room", form: "msg=x", headers: registerOnly).status == 403)
            #expect(try await herald.request(.GET, "/feedback", headers: registerOnly).status == 403)
            #expect(try await herald.request(.GET, "/subscriber/\(other)", headers: registerOnly).status == 200, "no app: every subscriber")
        }
    }

    @Test func aRevokedOrExpiredTokenIsRefusedWithABearerChallenge() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let secret = try await Self.create(herald, #"{"name":"short","realms":["register"],"expires_in":"3600"}"#)
            let response = try await herald.request(.GET, "/events", headers: Self.bearer(secret))
            #expect(response.status == 200)

            let listed = try #require(try JSONSerialization.jsonObject(with: Data(try await herald.request(.GET, "/tokens", headers: Self.ops).body.utf8)) as? [[String: Any]])
            #expect(listed.map { $0["name"] as? String } == ["short"])
            #expect(listed.first?["token"] == nil, "the secret is shown once, at creation")
            #expect(listed.first?["expires"] as? Int != nil)

            #expect(try await herald.request(.DELETE, "/tokens/short", headers: Self.ops).status == 204)
            let refused = try await herald.request(.GET, "/events", headers: Self.bearer(secret))
            #expect(refused.status == 401)
            #expect(refused.headers["WWW-Authenticate"].first == #"Bearer error="invalid_token""#)
            #expect(try await herald.request(.DELETE, "/tokens/short", headers: Self.ops).status == 404)

            let expiring = try await Self.create(herald, #"{"name":"brief","realms":["register"],"expires_in":1}"#)
            try await eventually { try await herald.request(.GET, "/events", headers: Self.bearer(expiring)).status == 401 }
            let wrong = try await herald.request(.GET, "/events", headers: Self.bearer("hld_" + String(repeating: "A", count: 43)))
            #expect(wrong.status == 401)
            #expect(try Self.object(wrong.body)["error"] as? String == "Invalid token")
        }
    }

    @Test func withTokensAndNoBasicUsersCredentialsAreRequiredAndTheDatabaseHoldsNoSecret() async throws {
        try await withHerald(yaml: "providers:\n  hooks-a: {kind: http}\n") { herald in
            #expect(try await herald.request(.GET, "/events").status == 200, "open, as pushd, while no token exists")
            let created = try await herald.application.intake.createToken(name: "first", scopes: TokenScopes(realms: [.register, .admin]))
            // Created beside the API, as `herald tokens create` does: the node reads it within a second.
            try await eventually { try await herald.request(.GET, "/events", headers: Self.bearer(created.secret)).status == 200 }
            let refused = try await herald.request(.GET, "/events")
            #expect(refused.status == 401)
            #expect(refused.headers["WWW-Authenticate"].first == "Bearer")
            #expect(try await herald.request(.GET, "/events", headers: Self.bearer(created.secret)).status == 200)
            #expect(try await herald.request(.POST, "/event/e", form: "msg=x", headers: Self.bearer(created.secret)).status == 403, "no publish realm")

            // The secret is nowhere in the database's files; its digest is.
            try await herald.stop()
            var bytes = Data()
            for name in try FileManager.default.contentsOfDirectory(atPath: herald.directory) where name.hasPrefix("herald.db") {
                bytes.append(try Data(contentsOf: URL(fileURLWithPath: herald.directory + "/" + name)))
            }
            #expect(bytes.range(of: Data(created.secret.utf8)) == nil)
            #expect(bytes.range(of: Data(created.secret.dropFirst(4).prefix(20).utf8)) == nil)
            #expect(bytes.range(of: Data(created.digest.utf8)) != nil)
        }
    }

    @Test func revocationOnOnePostgreSQLNodeIsSeenByTheOther() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        let yaml = "server:\n  database: \(server.url(database: database))\nproviders:\n  hooks-a: {kind: http}\n"
        try await withHerald(yaml: yaml) { first in
            try await withHerald(yaml: yaml) { second in
                let created = try await first.application.intake.createToken(name: "shared", scopes: TokenScopes(realms: [.register]))
                try await eventually { try await second.request(.GET, "/events", headers: Self.bearer(created.secret)).status == 200 }
                #expect(try await first.application.intake.revokeToken(named: "shared"))
                try await eventually(limit: .seconds(5)) {
                    try await second.request(.GET, "/events", headers: Self.bearer(created.secret)).status == 401
                }
            }
        }
    }
}

/// `server.rate_limit` counts per token when a token is used.
@Suite struct APITokenRateLimitTests {
    @Test func eachTokenHasItsOwnBucket() async throws {
        let config = """
            server:
              auth:
                ops: {password: secret, realms: [register, publish, listen, admin]}
              rate_limit:
                publish: {rate: 0.001, burst: 1}
            providers:
              hooks-a: {kind: http}
            """
        try await withHerald(yaml: config) { herald in
            let first = APITokenTests.bearer(try await APITokenTests.create(herald, #"{"name":"one","realms":["publish"]}"#))
            let second = APITokenTests.bearer(try await APITokenTests.create(herald, #"{"name":"two","realms":["publish"]}"#))
            #expect(try await herald.request(.POST, "/event/e", form: "msg=x", headers: first).status == 204)
            let limited = try await herald.request(.POST, "/event/e", form: "msg=x", headers: first)
            #expect(limited.status == 429)
            #expect(limited.headers["Retry-After"].first != nil)
            #expect(try await herald.request(.POST, "/event/e", form: "msg=x", headers: second).status == 204, "another token, another bucket")
        }
    }
}
