import HeraldTestSupport
import Testing

extension ConfigurationErrorTests {
    @Test func badRateLimitsAreNamed() async throws {
        let unknown = try await HeraldProcess.run(["serve", "--config", try configFile("server:\n  rate_limit:\n    pubish: {rate: 1}\n")])
        #expect(unknown.0 != 0)
        #expect(unknown.1.contains("server.rate_limit.pubish"))
        #expect(unknown.1.contains(#"did you mean "publish"?"#))
        let zero = try await HeraldProcess.run(["serve", "--config", try configFile("server:\n  rate_limit:\n    register: {rate: 0, burst: 1}\n")])
        #expect(zero.0 != 0)
        #expect(zero.1.contains("server.rate_limit.register.rate"))
        #expect(zero.1.contains("greater than 0"))
    }
}
