import ArgumentParser
import Foundation
import HeraldWebPush

/// `herald vapid`: Web Push VAPID keys.
struct Vapid: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Web Push VAPID keys.",
        subcommands: [Generate.self]
    )

    /// `herald vapid generate [--out FILE]`: a new P-256 key pair.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new VAPID key pair (PEM) for a webpush provider's vapid_private_key_file.",
            discussion: """
                The private key is written as PKCS#8 PEM (mode 0600) to --out, or to standard output without it. \
                The public key (base64url), which browsers pass as applicationServerKey, is printed on standard \
                error; Herald also serves it at GET /webpush/vapid-public-key.
                """
        )

        @Option(help: "File to write the private key to (refused if it exists).")
        var out: String?

        func run() async throws {
            let key = VAPIDKey()
            if let out {
                guard !FileManager.default.fileExists(atPath: out) else {
                    throw ValidationError("\(out) exists; a VAPID key is never overwritten (subscriptions depend on it)")
                }
                try key.write(toFile: out)
                FileHandle.standardError.write(Data("wrote the private key to \(out)\n".utf8))
            } else {
                FileHandle.standardOutput.write(Data(key.pemRepresentation.utf8))
                if !key.pemRepresentation.hasSuffix("\n") { FileHandle.standardOutput.write(Data("\n".utf8)) }
            }
            FileHandle.standardError.write(Data("public key (applicationServerKey): \(key.publicKeyBase64URL)\n".utf8))
        }
    }
}
