import Foundation
import HeraldCore

extension ConfigSection {
    /// The webhook signer of `signing_secret` (one `whsec_` secret, or a list of them, or several
    /// separated by spaces, as an environment variable gives them) or `signing_secret_file` (a file of
    /// secrets separated by spaces or newlines); `nil` when neither is set: requests are not signed.
    public func webhookSigner() throws(ConfigurationError) -> WebhookSigner? {
        let key = "signing_secret"
        let fileKey = "signing_secret_file"
        let texts: [String]
        let path: String
        switch (contains(key), contains(fileKey)) {
        case (false, false):
            return nil
        case (true, true):
            throw ConfigurationError(key: self.path, "give either \(key) or \(fileKey), not both")
        case (true, false):
            texts = (try stringList(key) ?? []).flatMap(Self.words)
            path = keyPath(key)
        case (false, true):
            let file = try requiredString(fileKey)
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError(key: keyPath(fileKey), "cannot read \(file)")
            }
            texts = Self.words(String(decoding: data, as: UTF8.self))
            path = keyPath(fileKey)
        }
        guard !texts.isEmpty else { throw ConfigurationError(key: path, "needs at least one \(WebhookSigningSecret.prefix) secret") }
        var secrets: [WebhookSigningSecret] = []
        for text in texts { secrets.append(try WebhookSigningSecret(text, key: path)) }
        return WebhookSigner(secrets: secrets)
    }

    /// The parts of `text` between spaces, tabs and newlines.
    private static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
    }
}
