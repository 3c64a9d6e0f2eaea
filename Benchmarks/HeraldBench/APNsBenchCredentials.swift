import Crypto
import Foundation
import HeraldSimulators

/// What an APNs benchmark needs in its working directory: a test CA (for the simulator or the
/// sink's certificate) and a fresh `.p8` signing key written where a provider can read it.
struct APNsBenchCredentials {
    let authority: SimulatorCertificateAuthority
    let key: P256.Signing.PrivateKey
    /// The `.p8` file of ``key``.
    let keyFile: String

    /// Makes them in `directory`, emptied first when `fresh`; the key file is named after `keyID`.
    init(directory: String, keyID: String, fresh: Bool) throws {
        if fresh {
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        self.authority = try SimulatorCertificateAuthority(directory: directory)
        self.key = P256.Signing.PrivateKey()
        self.keyFile = directory + "/AuthKey_\(keyID).p8"
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
    }
}
