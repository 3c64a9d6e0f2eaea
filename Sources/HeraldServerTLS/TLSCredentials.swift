import HeraldConfiguration
import HeraldCore
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The certificate and key one TLS listener serves, re-read from their files on demand
/// (on `SIGHUP`, by ``TLSReloadService``).
///
/// Every handshake asks for the identity current at that moment, so a reload takes effect
/// for new connections at once while connections already open keep the session they
/// negotiated. A reload that fails (a missing file, a key that does not match) is logged
/// and changes nothing: the previous identity keeps being served.
public final class TLSCredentials: Sendable {
    /// Where the files are, and the key path errors and log lines name.
    public let settings: HeraldConfiguration.ListenerTLS
    private let current: Mutex<TLSIdentity>

    /// Reads the files now; a file that is missing or unusable is a configuration error naming its key.
    public init(settings: HeraldConfiguration.ListenerTLS) throws(ConfigurationError) {
        self.settings = settings
        self.current = Mutex(try TLSIdentity(settings: settings))
    }

    /// The identity the next handshake presents.
    public var identity: TLSIdentity {
        current.withLock { $0 }
    }

    /// Re-reads the files; on success the next handshake presents them, otherwise the error is
    /// logged and the previous identity stays.
    ///
    /// - Returns: whether the new files were taken.
    @discardableResult
    public func reload(logger: Logger) -> Bool {
        do {
            let identity = try TLSIdentity(settings: settings)
            current.withLock { $0 = identity }
            logger.info(
                "reloaded the TLS certificate",
                metadata: ["listener": "\(settings.keyPath)", "cert_file": "\(settings.certificateFile)", "serial": "\(identity.serialNumber)"])
            return true
        } catch {
            // The message names the key and the file at fault, never a file's contents.
            logger.error(
                "cannot reload the TLS certificate; the previous one is still served",
                metadata: ["listener": "\(settings.keyPath)", "error": "\(error)", "serial": "\(identity.serialNumber)"])
            return false
        }
    }

    /// A server TLS configuration (TLS 1.2 or later, ALPN `h2` and `http/1.1`) whose handshakes
    /// each present the identity current at that moment.
    public func serverConfiguration() -> TLSConfiguration {
        let initial = identity
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: initial.certificateChain.map { .certificate($0) }, privateKey: .privateKey(initial.privateKey))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["h2", "http/1.1"]
        // The context (built once per listener) keeps the initial identity; this callback runs for
        // each ClientHello and swaps in the current one, so no context has to be rebuilt on reload.
        configuration.sslContextCallback = { [self] _, promise in
            let identity = self.identity
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = identity.certificateChain.map { .certificate($0) }
            override.privateKey = .privateKey(identity.privateKey)
            promise.succeed(override)
        }
        return configuration
    }
}
