import Foundation
import HeraldCore
import HeraldWNS
import Testing

/// Option checking of the `wns` and `mpns` kinds.
@Suite struct WNSKindTests {
    func make(_ values: [(String, String)]) async throws -> any PushProvider {
        var map: [(String, ConfigValue)] = [("kind", .scalar("wns"))]
        map += values.map { ($0.0, .scalar($0.1)) }
        let section = ConfigSection(path: "providers.wns", values: .init(uniqueKeysWithValues: map))
        return try await WNSKind().makeProvider(name: "wns", options: section, environment: ProviderEnvironment())
    }

    func problem(_ values: [(String, String)]) async -> String? {
        do {
            let provider = try await make(values)
            await provider.shutdown()
            return nil
        } catch let error as ConfigurationError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    @Test func defaultsToToastAgainstLoginLive() async throws {
        let provider = try await make([("client_id", "ms-app://s-1"), ("client_secret", "s")])
        #expect(provider.kind == "wns")
        #expect(!provider.countsBadges)
        #expect(provider.maxConcurrentDeliveries == 256)
        // Without token_endpoint only WNS's own hosts are channels.
        #expect(provider.normalizeToken(TokenInput(token: .string("https://127.0.0.1:9445/?token=x"))) == nil)
        #expect(provider.normalizeToken(TokenInput(token: .string("https://db5.notify.windows.com/?token=x"))) != nil)
        await provider.shutdown()
    }

    @Test func optionsAreChecked() async {
        #expect(await problem([("client_secret", "s")]) == "providers.wns.client_id: is required")
        #expect(await problem([("client_id", "c")]) == "providers.wns.client_secret: is required (or client_secret_file)")
        #expect(await problem([("client_id", "c"), ("client_secret", "s"), ("client_secret_file", "/x")])
            == "providers.wns: give either client_secret or client_secret_file, not both")
        #expect(await problem([("client_id", "c"), ("client_secret", "s"), ("type", "popup")])
            == "providers.wns.type: expected toast, tile, badge or raw, got \"popup\"")
        #expect(await problem([("client_id", "c"), ("client_secret", "s"), ("token_endpoint", "http://127.0.0.1/x")])
            == "providers.wns.token_endpoint: expected an https URL, got \"http://127.0.0.1/x\"")
        #expect(await problem([("client_id", "c"), ("client_secret", "s"), ("max_concurrent", "0")]) != nil)
    }

    @Test func theSecretMayComeFromAFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wns-secret-\(UUID().uuidString)").path
        try "from-file\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let provider = try await make([("client_id", "c"), ("client_secret_file", path), ("type", "badge"), ("max_concurrent", "10")])
        #expect(provider.countsBadges)
        #expect(provider.maxConcurrentDeliveries == 10)
        await provider.shutdown()
        #expect(await problem([("client_id", "c"), ("client_secret_file", path + ".missing")]) != nil)
    }

    @Test func mpnsTilesNeedAMapping() async throws {
        let kind = MPNSKind()
        let tile = ConfigSection(path: "providers.mpns", values: ["kind": .scalar("mpns"), "type": .scalar("tile")])
        await #expect(throws: ConfigurationError.self) { try await kind.makeProvider(name: "mpns", options: tile, environment: ProviderEnvironment()) }
        let unknown = ConfigSection(
            path: "providers.mpns", values: ["kind": .scalar("mpns"), "type": .scalar("tile"), "tile_mapping": .map(["colour": .scalar("red")])])
        do {
            _ = try await kind.makeProvider(name: "mpns", options: unknown, environment: ProviderEnvironment())
            Issue.record("an unknown tile property must be refused")
        } catch let error as ConfigurationError {
            #expect(error.key == "providers.mpns.tile_mapping.colour")
        }
        let toast = ConfigSection(path: "providers.mpns", values: ["kind": .scalar("mpns")])
        let provider = try await kind.makeProvider(name: "mpns", options: toast, environment: ProviderEnvironment())
        #expect(provider.kind == "mpns")
        #expect(provider.normalizeToken(TokenInput(token: .string("http://db3.notify.live.net/throttledthirdparty/01.00/AAF"))) != nil)
        #expect(provider.normalizeToken(TokenInput(token: .string("https://db3.notify.windows.com/x"))) == nil)
        await provider.shutdown()
    }
}
