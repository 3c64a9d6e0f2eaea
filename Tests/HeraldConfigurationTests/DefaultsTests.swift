import HeraldConfiguration
import HeraldCore
import Logging
import Testing

/// With no configuration at all, `herald serve` must start and be useful (`interface.md`).
@Suite struct DefaultsTests {
    @Test func noFileGivesTheDocumentedDefaults() throws {
        let loaded = try Fixture.load(nil)
        let configuration = loaded.configuration
        #expect(loaded.warnings.isEmpty)
        #expect(configuration.server.http == HeraldConfiguration.Endpoint(host: "0.0.0.0", port: 8080))
        #expect(configuration.server.udp == nil)
        #expect(configuration.server.database == "sqlite:herald.db")
        #expect(configuration.server.accessLog == false)
        #expect(configuration.server.auth.isEmpty)
        #expect(configuration.server.acl.isEmpty)
        #expect(configuration.log.level == .info)
        #expect(configuration.eventSource.enabled)
        #expect(configuration.outbound.caFile == nil)
        let delivery = configuration.delivery
        #expect(delivery.maxFailures == 5)
        #expect(delivery.maxAttempts == 5)
        #expect(delivery.retryDelay == .seconds(1))
        #expect(delivery.maxRetryDelay == .seconds(300))
        #expect(delivery.batchSize == 500)
        #expect(delivery.inFlight == 2000)
        #expect(delivery.concurrentJobs == 4)
        #expect(delivery.leaseDuration == .seconds(30))
        #expect(Array(configuration.providers.keys) == ["http"])
        #expect(configuration.providers["http"]?.kind == "http")
        #expect(configuration.providers["http"]?.options.path == "providers.http")
        #expect(configuration.compat == HeraldConfiguration.Compat())
    }

    @Test func theMemberwiseDefaultsMatchWhatTheLoaderGives() throws {
        let loaded = try Fixture.load(nil).configuration
        let built = HeraldConfiguration()
        #expect(built.server == loaded.server)
        #expect(built.delivery == loaded.delivery)
        #expect(built.log == loaded.log)
        #expect(built.providers == loaded.providers)
    }

    @Test(arguments: ["", "# nothing but a comment\n", "---\n", "~\n"])
    func anEmptyFileGivesTheDefaults(_ text: String) throws {
        let configuration = try Fixture.load(text).configuration
        #expect(configuration.server.http.port == 8080)
        #expect(Array(configuration.providers.keys) == ["http"])
    }

    @Test func anExplicitEmptyProvidersMappingMeansNoProviders() throws {
        let configuration = try Fixture.load("providers: {}\n").configuration
        #expect(configuration.providers.isEmpty)
    }

    @Test func withoutAnHTTPKindThereIsNoDefaultProvider() throws {
        let kinds = ProviderKindRegistry([TestKind(name: "apns", optionKeys: [])])
        let loaded = try ConfigurationLoader(kinds: kinds).load(file: nil, environment: [:], overrides: ConfigurationOverrides())
        #expect(loaded.configuration.providers.isEmpty)
    }

    @Test func aNullSectionMeansItsDefaults() throws {
        let configuration = try Fixture.load("server:\nlog: ~\ndelivery:\n").configuration
        #expect(configuration.server.http.port == 8080)
        #expect(configuration.log.level == .info)
        #expect(configuration.delivery.batchSize == 500)
    }
}
