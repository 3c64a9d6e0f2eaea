import Foundation
import HeraldCore
import HeraldWebPush
import Logging
import OrderedCollections
import Testing

/// The `webpush` kind's options (interface.md, pushd-api.md §10.4).
@Suite struct WebPushKindTests {
    let environment = ProviderEnvironment(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

    func make(_ values: OrderedDictionary<String, ConfigValue>) async throws -> WebPushProvider {
        let provider = try await WebPushKind().makeProvider(
            name: "webpush", options: ConfigSection(path: "providers.webpush", values: values), environment: environment)
        return try #require(provider as? WebPushProvider)
    }

    func configurationError(_ values: OrderedDictionary<String, ConfigValue>) async -> ConfigurationError? {
        do {
            let provider = try await make(values)
            await provider.shutdown()
            return nil
        } catch let error as ConfigurationError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func nameAndOptionKeys() {
        let kind = WebPushKind()
        #expect(kind.name == "webpush")
        #expect(kind.optionKeys.isSuperset(of: [
            "vapid_subject", "vapid_private_key_file", "vapid_private_key", "ca_file", "timeout", "max_concurrent",
            "max_connections_per_host", "ttl",
        ]))
    }

    @Test func keyFileFromVapidGenerateIsReadAndItsPublicKeyExposed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = VAPIDKey()
        try key.write(toFile: path)
        let provider = try await make([
            "vapid_subject": .scalar("mailto:ops@example.com"), "vapid_private_key_file": .scalar(path), "max_concurrent": .scalar("12"),
        ])
        #expect(provider.vapidPublicKey == key.publicKeyBase64URL)
        #expect(provider.kind == "webpush")
        #expect(provider.name == "webpush")
        #expect(provider.maxConcurrentDeliveries == 12)
        #expect(!provider.countsBadges)
        #expect(!provider.exhaustedRetriesCountAgainstSubscriber)
        await provider.shutdown()
    }

    @Test func inlineKeyInEitherForm() async throws {
        let key = VAPIDKey()
        for text in [key.pemRepresentation, key.privateKeyBase64URL] {
            let provider = try await make(["vapid_subject": .scalar("https://example.com/ops"), "vapid_private_key": .scalar(text)])
            #expect(provider.vapidPublicKey == key.publicKeyBase64URL)
            await provider.shutdown()
        }
    }

    @Test func missingOrBadOptionsNameTheirKey() async throws {
        let key = VAPIDKey().privateKeyBase64URL
        #expect(await configurationError(["vapid_private_key": .scalar(key)])?.key == "providers.webpush.vapid_subject")
        for subject in ["ops@example.com", "mailto:", "mailto:nobody", "http://example.com", "mailto: <ops@example.com>"] {
            let error = await configurationError(["vapid_subject": .scalar(subject), "vapid_private_key": .scalar(key)])
            #expect(error?.key == "providers.webpush.vapid_subject", "\(subject)")
        }
        #expect(await configurationError(["vapid_subject": .scalar("mailto:a@b.c")])?.key == "providers.webpush.vapid_private_key_file")
        #expect(await configurationError(["vapid_subject": .scalar("mailto:a@b.c"), "vapid_private_key": .scalar("secret-garbage")])?.key
            == "providers.webpush.vapid_private_key")
        let garbage = await configurationError(["vapid_subject": .scalar("mailto:a@b.c"), "vapid_private_key": .scalar("secret-garbage")])
        #expect(garbage?.description.contains("secret-garbage") == false)
        #expect(await configurationError([
            "vapid_subject": .scalar("mailto:a@b.c"), "vapid_private_key": .scalar(key), "vapid_private_key_file": .scalar("/x.pem"),
        ]) != nil)
        #expect(await configurationError(["vapid_subject": .scalar("mailto:a@b.c"), "vapid_private_key_file": .scalar("/nonexistent.pem")])?.key
            == "providers.webpush.vapid_private_key_file")
        #expect(await configurationError(["vapid_subject": .scalar("mailto:a@b.c"), "vapid_private_key": .scalar(key), "ttl": .scalar("-1")])?.key
            == "providers.webpush.ttl")
        #expect(await configurationError(["vapid_subject": .scalar("mailto:a@b.c"), "vapid_private_key": .scalar(key), "ca_file": .scalar("/nonexistent-ca.pem")])?.key
            == "providers.webpush.ca_file")
    }
}
