import HeraldCore
import HeraldGCMLegacy
import Testing

/// Option checking of the `gcm-legacy` kind.
@Suite struct GCMLegacyKindTests {
    func problem(_ values: [(String, String)]) async -> String? {
        let section = ConfigSection(
            path: "providers.gcm", values: .init(uniqueKeysWithValues: [("kind", ConfigValue.scalar("gcm-legacy"))] + values.map { ($0.0, .scalar($0.1)) }))
        do {
            let provider = try await GCMLegacyKind().makeProvider(name: "gcm", options: section, environment: ProviderEnvironment())
            await provider.shutdown()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func optionsAreChecked() async {
        #expect(await problem([("api_key", "k")]) == "providers.gcm.endpoint: is required")
        #expect(await problem([("endpoint", "http://gcm-proxy.example/gcm/send"), ("api_key", "k")])
            == "providers.gcm.endpoint: expected an https URL, got \"http://gcm-proxy.example/gcm/send\"")
        #expect(await problem([("endpoint", "https://gcm-proxy.example/gcm/send")]) == "providers.gcm.api_key: is required (or api_key_file)")
        #expect(await problem([("endpoint", "https://gcm-proxy.example/gcm/send"), ("api_key", "k"), ("batch_size", "1001")]) != nil)
        #expect(await problem([("endpoint", "https://gcm-proxy.example/gcm/send"), ("api_key", "k"), ("batch_delay", "60")])
            == "providers.gcm.batch_delay: must be at most 10 seconds")
        #expect(await problem([("endpoint", "https://gcm-proxy.example/gcm/send"), ("api_key", "k"), ("batch_size", "100"), ("batch_delay", "0.002")]) == nil)
    }
}
