import NIOSSL
import SwiftASN1
import X509

/// A message's `cert`: PEM text holding the provider certificate and its unencrypted private key
/// (compat.md §2.4), checked before the message's APNs part is accepted.
struct SujPusherCertificate: Sendable {
    /// The PEM text as the message carried it.
    let pem: String
    /// The certificate subject's UID (OID 0.9.2342.19200300.100.1.1): the app's bundle id, sent as
    /// `apns-topic`; `nil` when the subject has none (APNs then uses the certificate's topic).
    let topic: String?

    /// The user id attribute of a distinguished name, which Apple's push certificates set to the topic.
    private static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]

    /// Checks `pem`; `nil` when it holds no certificate or no private key that TLS can use.
    init?(pem: String) {
        let bytes = Array(pem.utf8)
        guard let chain = try? NIOSSLCertificate.fromPEMBytes(bytes), !chain.isEmpty,
            (try? NIOSSLPrivateKey(bytes: bytes, format: .pem)) != nil
        else { return nil }
        self.pem = pem
        let document = (try? PEMDocument.parseMultiple(pemString: pem))?.first { $0.discriminator == "CERTIFICATE" }
        let certificate = document.flatMap { try? Certificate(derEncoded: $0.derBytes) }
        self.topic = certificate?.subject.lazy.flatMap { $0 }.first { $0.type == Self.userID }.flatMap { String($0.value) }
    }
}
