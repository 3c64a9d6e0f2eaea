import Foundation
import HeraldTestSupport
import Testing

/// `herald vapid generate`: a key a `webpush` provider can load, never overwriting one.
@Suite struct VapidCommandTests {
    @Test func generatesALoadableKeyAndRefusesToOverwrite() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let file = directory + "/vapid.pem"
        let generated = try await HeraldProcess.run(["vapid", "generate", "--out", file])
        #expect(generated.status == 0, "\(generated.stderr)")
        let pem = try String(contentsOfFile: file, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "the private key is readable by its owner only")
        let publicKey = try #require(generated.stderr.split(separator: "\n").first { $0.hasPrefix("public key") }?.split(separator: " ").last)
        #expect(publicKey.count == 87 && publicKey.hasPrefix("B"), "an uncompressed P-256 point, base64url: \(publicKey)")

        let again = try await HeraldProcess.run(["vapid", "generate", "--out", file])
        #expect(again.status != 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == pem)
    }
}
