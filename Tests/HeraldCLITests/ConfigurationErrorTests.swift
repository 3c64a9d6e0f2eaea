import Foundation
import HeraldTestSupport
import Testing

/// `herald serve` refuses bad configurations with one line naming the key, before anything listens.
@Suite struct ConfigurationErrorTests {
    func configFile(_ yaml: String) throws -> String {
        let path = TestHerald.makeTemporaryDirectory() + "/herald.yml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func unknownKeyIsNamed() async throws {
        let (status, stderr) = try await HeraldProcess.run(["serve", "--config", try configFile("server:\n  htpp:\n    port: 80\n")])
        #expect(status != 0)
        #expect(stderr.contains("server.htpp"))
        #expect(stderr.contains("unknown key"))
    }

    @Test func badPortIsNamed() async throws {
        let (status, stderr) = try await HeraldProcess.run(["serve", "--config", try configFile("server:\n  http:\n    port: 70000\n")])
        #expect(status != 0)
        #expect(stderr.contains("server.http.port"))
    }

    @Test func unreadableFileIsNamed() async throws {
        let (status, stderr) = try await HeraldProcess.run(["serve", "--config", "/nonexistent/herald.yml"])
        #expect(status != 0)
        #expect(stderr.contains("/nonexistent/herald.yml"))
    }

    @Test func badEnvironmentValueIsNamed() async throws {
        let (status, stderr) = try await HeraldProcess.run(["serve"], environment: ["HERALD_SERVER_HTTP_PORT": "eighty"])
        #expect(status != 0)
        #expect(stderr.contains("server.http.port"))
    }

    @Test func badFlagIsRefused() async throws {
        let (status, stderr) = try await HeraldProcess.run(["serve", "--port", "abc"])
        #expect(status != 0)
        #expect(stderr.contains("--port"))
    }

    @Test func unknownProviderKindIsNamed() async throws {
        let (status, stderr) = try await HeraldProcess.run(["serve", "--config", try configFile("providers:\n  carrier-pigeon:\n    kind: pigeon\n")])
        #expect(status != 0)
        #expect(stderr.contains("providers.carrier-pigeon.kind"))
    }
}
