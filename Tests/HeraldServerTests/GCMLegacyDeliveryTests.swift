import Foundation
import HeraldSimulators
import HeraldTestSupport
import Logging
import Testing

/// Legacy GCM end to end: a canonical registration id replaces the stored token, and `/feedback` says so.
@Suite struct GCMLegacyDeliveryTests {
    @Test func canonicalRegistrationIDReplacesTheStoredToken() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        var configuration = GCMLegacySimulator.Configuration(apiKeys: ["test-key"], certificateAuthority: authority)
        configuration.logger = Logger(label: "test.simulator.gcm", factory: { _ in SwiftLogNoOpLogHandler() })
        let simulator = GCMLegacySimulator(configuration: configuration)
        _ = try await simulator.start()
        let yaml = """
            providers:
              gcm-legacy:
                kind: gcm-legacy
                endpoint: \(simulator.endpoint)
                api_key: test-key
                ca_file: \(authority.caCertificateFile!)
                batch_delay: 0.001
            """
        do {
            try await withHerald(yaml: yaml) { herald in
                let response = try await herald.request(.POST, "/subscribers", form: "proto=gcm-legacy&token=old-registration")
                #expect(response.status == 201)
                let id = try #require((try Fixtures.json(response.body) as? [String: Any])?["id"] as? String)
                simulator.setState(.canonical("new-registration"), of: "old-registration")
                #expect(try await herald.request(.POST, "/event/unicast:\(id)", form: "msg=hello").status == 204)
                try await eventually {
                    let subscriber = try Fixtures.json(try await herald.request(.GET, "/subscriber/\(id)").body) as? [String: Any]
                    return subscriber?["token"] as? String == "new-registration"
                }
                let feedback = try #require(try Fixtures.json(try await herald.request(.GET, "/feedback").body) as? [String: Any])
                let entry = try #require((feedback["entries"] as? [[String: Any]])?.first)
                #expect(entry["action"] as? String == "replaced")
                #expect(entry["token"] as? String == "old-registration")
                #expect(entry["replacement"] as? String == "new-registration")
                let statistics = try #require(try Fixtures.json(try await herald.request(.GET, "/event/unicast:\(id)").body) as? [String: Any])
                #expect(statistics["delivered"] as? Int == 1)
            }
            await simulator.stop()
        } catch {
            await simulator.stop()
            throw error
        }
    }
}
