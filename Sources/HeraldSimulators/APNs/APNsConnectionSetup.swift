import NIOCore
import NIOSSL

/// The APNs part of setting up a connection that agreed on HTTP/2: reads the client certificate's topic and puts
/// the stream-limit machinery in front of nio-http2 (the rest is ``SimulatorHTTP2Pipeline``'s).
struct APNsConnectionSetup: Sendable {
    let configuration: APNsSimulator.Configuration
    let store: APNsSimulatorStore
    let registry: SimulatorConnectionRegistry

    /// Makes the connection's state and adds ``MaxConcurrentStreamsAdvertiser``; runs on the connection's event
    /// loop, after the TLS handshake, so that the client certificate decides the stream limit of the very first
    /// SETTINGS frame.
    func makeConnection(_ channel: any Channel) throws -> APNsConnectionState {
        // No TLS handler means cleartext, hence no certificate.
        let tls = try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
        let certificateTopic = tls?.peerCertificate.flatMap { certificate in
            (try? certificate.toDERBytes()).flatMap(SimulatorCertificateAuthority.topic(ofCertificateDER:))
        }
        let connection = APNsConnectionState(
            channel: channel,
            registry: self.registry,
            store: self.store,
            configuration: self.configuration,
            certificateTopic: certificateTopic
        )
        try channel.pipeline.syncOperations.addHandler(
            MaxConcurrentStreamsAdvertiser(
                advertisedValue: { connection.advertisedMaxConcurrentStreams },
                acknowledged: { connection.maxConcurrentStreamsAcknowledged($0) },
                goAwayWritten: { connection.goAwayWritten($0) }
            )
        )
        return connection
    }
}
