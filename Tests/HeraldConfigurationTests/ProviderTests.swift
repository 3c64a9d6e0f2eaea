import HeraldConfiguration
import HeraldCore
import Testing

/// Entries under `providers`: kinds from the registry, their option keys, their names.
@Suite struct ProviderTests {
    @Test func anUnknownKindNamesTheKeyAndTheKnownKinds() {
        let error = Fixture.failure("providers:\n  hms: {kind: huawei}\n")
        #expect(error?.key == "providers.hms.kind")
        #expect(error?.problem == "unknown provider kind \"huawei\" (known kinds: apns, fcm, http, mpns, webpush, wns)")
    }

    @Test func theKindIsRequired() {
        #expect(Fixture.failure("providers:\n  apns: {topic: x}\n") == ConfigurationError(key: "providers.apns.kind", "is required"))
    }

    @Test(arguments: [
        ("providers:\n  apns: {kind: apns, colour: red}\n", "providers.apns.colour"),
        ("providers:\n  hook: {kind: http, topic: x}\n", "providers.hook.topic"),
        ("providers:\n  wns-toast: {kind: wns, param_template: x}\n", "providers.wns-toast.param_template"),
    ])
    func anOptionTheKindDoesNotDeclareIsAnError(_ yaml: String, _ key: String) {
        let error = Fixture.failure(yaml)
        #expect(error?.key == key)
        #expect(error?.problem.hasPrefix("unknown key") == true)
    }

    @Test func everyKindAcceptsCAFile() throws {
        let providers = try Fixture.load("providers:\n  hook: {kind: http, ca_file: hook-ca.pem}\n").configuration.providers
        #expect(try providers["hook"]?.options.string("ca_file") == "hook-ca.pem")
        #expect(providers["hook"]?.kind == "http")
    }

    @Test func aMappingOptionIsKeptWhole() throws {
        let yaml = "providers:\n  mpns-tile: {kind: mpns, type: tile, tile_mapping: {title: \"${title}\", count: \"${badge}\"}}\n"
        let options = try #require(try Fixture.load(yaml).configuration.providers["mpns-tile"]).options
        let mapping = try #require(try options.section("tile_mapping"))
        #expect(mapping.path == "providers.mpns-tile.tile_mapping")
        #expect(Array(mapping.values.keys) == ["title", "count"])
    }

    @Test(arguments: ["bad name", "a/b", "émoi", "x:y"])
    func aProviderNameMustBeSafe(_ name: String) {
        let error = Fixture.failure("providers:\n  \"\(name)\": {kind: http}\n")
        #expect(error?.key == "providers.\(name)")
    }

    @Test func aProviderMustBeAMapping() {
        #expect(Fixture.failure("providers:\n  http:\n")?.key == "providers.http")
        #expect(Fixture.failure("providers: [http]\n")?.key == "providers")
    }

    @Test func providersKeepFileOrder() throws {
        let yaml = "providers:\n  zeta: {kind: http}\n  alpha: {kind: http}\n  mid.dle_1-x: {kind: http}\n"
        #expect(Array(try Fixture.load(yaml).configuration.providers.keys) == ["zeta", "alpha", "mid.dle_1-x"])
    }
}
