import HeraldConfiguration
import HeraldCore
import Testing

/// `server.rate_limit`: reading and refusing.
@Suite struct RateLimitConfigurationTests {
    @Test func absentMeansNoLimit() throws {
        #expect(try Fixture.load("server: {}\n").configuration.server.rateLimit.isEmpty)
    }

    @Test func limitsAreReadPerRealmWithFractionalRates() throws {
        let yaml = """
            server:
              rate_limit:
                register: {rate: 0.5, burst: 3}
                publish: {rate: 2.5}
                admin: {rate: 0.2}
            """
        let limits = try Fixture.load(yaml).configuration.server.rateLimit
        #expect(limits[.register] == HeraldConfiguration.RateLimit(rate: 0.5, burst: 3))
        #expect(limits[.publish] == HeraldConfiguration.RateLimit(rate: 2.5, burst: 3), "burst defaults to one second's worth, rounded up")
        #expect(limits[.admin]?.burst == 1, "and is at least 1")
        #expect(limits[.listen] == nil)
    }

    @Test func limitsCanBeSetFromTheEnvironment() throws {
        let loaded = try Fixture.load(nil, environment: ["HERALD_SERVER_RATE_LIMIT_PUBLISH_RATE": "5", "HERALD_SERVER_RATE_LIMIT_PUBLISH_BURST": "10"])
        #expect(loaded.configuration.server.rateLimit[.publish] == HeraldConfiguration.RateLimit(rate: 5, burst: 10))
    }

    @Test func anUnknownRealmIsRefusedWithASuggestion() throws {
        let error = try #require(Fixture.failure("server:\n  rate_limit:\n    regster: {rate: 1, burst: 1}\n"))
        #expect(error.key == "server.rate_limit.regster")
        #expect(error.problem == #"unknown realm (did you mean "register"? expected one of register, publish, listen, admin)"#)
        let other = try #require(Fixture.failure("server:\n  rate_limit:\n    everything: {rate: 1}\n"))
        #expect(other.problem == "unknown realm (expected one of register, publish, listen, admin)")
    }

    @Test(arguments: [
        ("rate: 0", "server.rate_limit.publish.rate", #"must be a number of requests per second greater than 0, got "0""#),
        ("rate: -1", "server.rate_limit.publish.rate", #"must be a number of requests per second greater than 0, got "-1""#),
        ("rate: fast", "server.rate_limit.publish.rate", #"must be a number of requests per second greater than 0, got "fast""#),
        ("rate: .inf", "server.rate_limit.publish.rate", #"must be a number of requests per second greater than 0, got ".inf""#),
        ("burst: 5", "server.rate_limit.publish.rate", "is required (requests per second)"),
        ("rate: 1, burst: 0", "server.rate_limit.publish.burst", "must be at least 1, got 0"),
        ("rate: 1, burst: 1.5", "server.rate_limit.publish.burst", #"expected an integer, got "1.5""#),
        ("rate: 1, brust: 2", "server.rate_limit.publish.brust", #"unknown key (did you mean "burst"?)"#),
    ])
    func aBadLimitIsRefusedNamingTheKey(entry: String, key: String, problem: String) throws {
        let error = try #require(Fixture.failure("server:\n  rate_limit:\n    publish: {\(entry)}\n"))
        #expect(error.key == key)
        #expect(error.problem == problem)
    }

    @Test func aRealmMustBeAMapping() throws {
        #expect(Fixture.failure("server:\n  rate_limit:\n    publish: 5\n")?.key == "server.rate_limit.publish")
        #expect(Fixture.failure("server:\n  rate_limit: 5\n")?.key == "server.rate_limit")
    }
}
