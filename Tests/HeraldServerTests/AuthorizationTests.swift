import Foundation
import HeraldTestSupport
import Testing

/// Basic authentication and ACLs (§2), acceptance sequence 25 of §16.
@Suite struct AuthorizationTests {
    static let basic = "Basic " + Data("admin:secret".utf8).base64EncodedString()
    static let registrar = "Basic " + Data("app:pw".utf8).base64EncodedString()

    @Test func basicAuthOverridesTheACL() async throws {
        let yaml = """
            server:
              auth:
                admin: {password: secret, realms: [register, publish]}
                app: {password: pw, realms: [register]}
              acl:
                register: [10.0.0.0/8]
            """
        try await withHerald(yaml: yaml) { herald in
            #expect(try await herald.request(.GET, "/status", headers: [("Authorization", Self.basic)]).status == 204)
            let anonymous = try await herald.request(.GET, "/status")
            #expect(anonymous.status == 401)
            #expect(anonymous.header("WWW-Authenticate") == #"Basic realm="Authorization Required""#)
            #expect(anonymous.body == "Unauthorized")
            let wrong = "Basic " + Data("admin:nope".utf8).base64EncodedString()
            #expect(try await herald.request(.GET, "/status", headers: [("Authorization", wrong)]).status == 401)
            // A Bearer credential is an API token's, checked whatever else is configured.
            #expect(try await herald.request(.GET, "/status", headers: [("Authorization", "Bearer x")]).status == 401)
            #expect(try await herald.request(.GET, "/status", headers: [("Authorization", "Digest x")]).status == 400)
            let forbidden = try await herald.request(.POST, "/event/e", form: "msg=x", headers: [("Authorization", Self.registrar)])
            #expect(forbidden.status == 403)
            #expect(forbidden.body == #"{"error":"Unauthorized"}"#)
            #expect(try await herald.request(.POST, "/event/e", form: "msg=x", headers: [("Authorization", Self.basic)]).status == 204)
            #expect(try await herald.request(.GET, "/crossdomain.xml").status == 200, "public")
            #expect(try await herald.request(.OPTIONS, "/subscribe").status == 200, "preflights carry no credentials")
        }
    }

    @Test func aclAloneChecksTheSourceAddress() async throws {
        try await withHerald(yaml: "server:\n  acl:\n    publish: [\"::1\"]\n") { herald in
            let refused = try await herald.request(.POST, "/event/e", form: "msg=x")
            #expect(refused.status == 403, "127.0.0.1 is not ::1")
            #expect(refused.body == #"{"error":"Unauthorized"}"#)
            #expect(try await herald.request(.GET, "/status").status == 204, "realms without an ACL are open")
        }
        try await withHerald(yaml: "server:\n  acl:\n    publish: [127.0.0.0/8]\n") { herald throws in
            #expect(try await herald.request(.POST, "/event/e", form: "msg=x").status == 204)
        }
    }

    @Test func badACLEntryIsAConfigurationError() async throws {
        await #expect(throws: (any Error).self) {
            try await withHerald(yaml: "server:\n  acl:\n    publish: [not-an-address]\n") { _ in }
        }
    }
}
