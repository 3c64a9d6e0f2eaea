import _CryptoExtras
import Crypto
import Foundation
import HeraldSimulators

extension SimulatorCertificateAuthority.ServerCertificate {
    /// Writes the certificate and key to `certificateFile` and `keyFile`, replacing what is there
    /// (each file is replaced at once, as a deploy tool renames a finished file into place).
    ///
    /// - Parameter password: When given, the key is written encrypted with it (legacy PEM
    ///   encryption, AES-128-CBC), as `openssl` writes with `-aes128`.
    public func write(certificateFile: String, keyFile: String, password: String? = nil) throws {
        try certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        let key = try password.map { try Self.encryptedPEM(privateKeyDER, password: $0) } ?? privateKeyPEM
        try key.write(toFile: keyFile, atomically: true, encoding: .utf8)
    }

    /// A PKCS #8 key in PEM, encrypted the way OpenSSL's traditional format does it
    /// (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: AES-128-CBC,<iv>`; the key is
    /// `EVP_BytesToKey(MD5, password, iv[0..<8], 1)`).
    static func encryptedPEM(_ der: [UInt8], password: String) throws -> String {
        let iv = (0..<16).map { _ in UInt8.random(in: 0...255) }
        var digest = Insecure.MD5()
        digest.update(data: Array(password.utf8))
        digest.update(data: iv[0..<8])
        let key = SymmetricKey(data: Array(digest.finalize()))
        let encrypted = try AES._CBC.encrypt(der, using: key, iv: try AES._CBC.IV(ivBytes: iv))
        let ivHex = iv.map { String(format: "%02X", $0) }.joined()
        let body = Data(encrypted).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,\(ivHex)\n\n\(body)\n-----END PRIVATE KEY-----\n"
    }
}
