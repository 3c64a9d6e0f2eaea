import Foundation
import HeraldTestSupport
import Testing

/// Herald with `server.database: postgres://…`: the whole path of a publish on the PostgreSQL store.
@Suite struct PostgresEndToEndTests {
    @Test func publishReachesAWebhookSubscriberWithTheStoreOnPostgreSQL() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        let yaml = """
            server:
              database: \(server.url(database: database))
            """
        try await withHerald(yaml: yaml) { herald in
            try await withReceiver { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/hook"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=hello").status == 204)
                _ = try await receiver.waitFor(count: 1)
                try await eventually {
                    let statistics = try Fixtures.json(try await herald.request(.GET, "/event/e").body) as? [String: Any]
                    return statistics?["delivered"] as? Int == 1
                }
                #expect(try await herald.application.store.counts().jobs == 0)
            }
        }
    }
}
