import Dispatch
import Foundation
import Logging
import ServiceLifecycle

/// Re-reads TLS certificates and keys on `SIGHUP`, the signal operators and tools such as
/// certbot's deploy hooks send after renewing a certificate.
///
/// The signal is caught from the moment the service is created, before anything listens, so a
/// `SIGHUP` sent once the server answers can never take the default action (ending the process).
public final class TLSReloadService: Service, @unchecked Sendable {
    // @unchecked: `source` is created in init, only cancelled afterwards (cancel is thread-safe),
    // and everything else is immutable.
    private let credentials: [TLSCredentials]
    private let logger: Logger
    private let signals: AsyncStream<Void>
    private let source: any DispatchSourceSignal

    /// Starts catching `SIGHUP` for `credentials`; the reloads happen while the service runs.
    public init(credentials: [TLSCredentials], logger: Logger) {
        self.credentials = credentials
        self.logger = logger
        let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.signals = signals
        // The default action of SIGHUP ends the process; ignoring it lets the dispatch source see it.
        // It is not restored afterwards: another listener's service may still be relying on it.
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.setCancelHandler { continuation.finish() }
        source.resume()
        self.source = source
    }

    deinit {
        source.cancel()
    }

    /// Reloads every listener's files on each `SIGHUP` until graceful shutdown.
    public func run() async throws {
        logger.debug("reloading TLS certificates on SIGHUP", metadata: ["listeners": "\(credentials.map(\.settings.keyPath))"])
        for await _ in signals.cancelOnGracefulShutdown() {
            logger.info("SIGHUP: reloading TLS certificates")
            for credentials in credentials {
                credentials.reload(logger: logger)
            }
        }
        source.cancel()
    }
}
