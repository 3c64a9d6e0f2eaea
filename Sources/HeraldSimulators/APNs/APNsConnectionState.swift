import NIOCore
import NIOHTTP2

/// Per-connection state of APNs: how the connection authenticated, and the stream limit it was told and that is
/// enforced on it (§1.5, §1.7).
///
/// Lives on the connection's event loop; every method must be called there (it is reached through `NIOLoopBound`).
final class APNsConnectionState: SimulatorHTTP2Connection {
    /// What `SETTINGS_MAX_CONCURRENT_STREAMS` nio-http2 itself is configured with. nio-http2 answers a violation
    /// with a bare `GOAWAY`, but APNs sends debug data, so the real limit is enforced here and this ceiling only
    /// keeps nio-http2 out of the way; ``MaxConcurrentStreamsAdvertiser`` puts the advertised value on the wire.
    static let nioStreamCeiling = Int(Int32.max)

    /// Debug data of the `GOAWAY` for a client that opens more streams than advertised (§1.7).
    static let maxStreamsViolationText = "Maximum active streams violated for this endpoint."

    let store: APNsSimulatorStore
    /// The topic from the client certificate's subject UID; non-`nil` makes this a certificate connection.
    let certificateTopic: String?
    private let authenticatedMaxConcurrentStreams: Int

    /// The value ``MaxConcurrentStreamsAdvertiser`` writes into outgoing `SETTINGS` frames.
    private(set) var advertisedMaxConcurrentStreams: Int
    /// The limit new streams are held to: the one of the last `SETTINGS` frame the client acknowledged, and the
    /// initial one before any acknowledgement (APNs, like Python h2 with initial settings, holds a client to 1 from
    /// the start). A raise thus counts only once the client has acknowledged it, as nghttp2 and h2 have it.
    private(set) var enforcedMaxConcurrentStreams: Int
    /// The provider key bound at the first accepted token (§1.5).
    var boundKeyID: String?
    private var raisedLimit = false
    /// Set at the first stream over the limit, so a client that opens several is reported and answered once.
    private var violated = false
    /// Set at the first `GOAWAY` nio-http2 sent on its own, so that the connection counts once in
    /// ``APNsSimulator/Statistics/protocolErrors``.
    private var countedProtocolError = false

    init(
        channel: any Channel,
        registry: SimulatorConnectionRegistry,
        store: APNsSimulatorStore,
        configuration: APNsSimulator.Configuration,
        certificateTopic: String?
    ) {
        self.store = store
        self.certificateTopic = certificateTopic
        self.authenticatedMaxConcurrentStreams = configuration.authenticatedMaxConcurrentStreams
        // Certificate connections are trusted from the handshake on, so they never go through the 1-stream phase.
        self.advertisedMaxConcurrentStreams =
            certificateTopic == nil
            ? configuration.initialMaxConcurrentStreams : configuration.authenticatedMaxConcurrentStreams
        self.enforcedMaxConcurrentStreams = self.advertisedMaxConcurrentStreams
        self.raisedLimit = certificateTopic != nil
        super.init(
            channel: channel,
            registry: registry,
            logger: configuration.logger,
            goAwayGracePeriodMilliseconds: configuration.goAwayGracePeriodMilliseconds
        )
    }

    /// Registers a newly opened client stream; `false` when it exceeds the advertised limit, in which case the
    /// connection is being ended with `GOAWAY PROTOCOL_ERROR` and the stream must not be served.
    override func streamOpened(_ streamID: HTTP2StreamID) -> Bool {
        if self.isEnding || self.violated {
            return false
        }
        guard self.openStreamCount < self.enforcedMaxConcurrentStreams else {
            self.violated = true
            let lastStreamID = self.lastProcessedStreamID
            self.logger.debug(
                "Client exceeded SETTINGS_MAX_CONCURRENT_STREAMS",
                metadata: ["limit": "\(self.enforcedMaxConcurrentStreams)", "stream": "\(streamID)"]
            )
            self.store.recorder.withStatistics { $0.maxConcurrentStreamsViolations += 1 }
            // Writing to the connection from inside nio-http2's frame processing would re-enter it; defer.
            self.channel.eventLoop.assumeIsolated().execute {
                self.goAway(
                    lastStreamID: lastStreamID,
                    errorCode: .protocolError,
                    debugText: Self.maxStreamsViolationText,
                    graceful: false
                )
            }
            return false
        }
        return super.streamOpened(streamID)
    }

    /// Called for every request whose provider token was valid: the first one raises the stream limit (§1.5), which
    /// is enforced once the client acknowledges the `SETTINGS` frame announcing it.
    func providerTokenAccepted() {
        guard !self.raisedLimit else { return }
        self.raisedLimit = true
        self.advertisedMaxConcurrentStreams = self.authenticatedMaxConcurrentStreams
        let settings = HTTP2Settings([
            HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.nioStreamCeiling)
        ])
        self.channel.writeAndFlush(
            HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings))), promise: nil)
        self.store.recorder.withStatistics { $0.maxConcurrentStreamsRaises += 1 }
    }

    /// Called when the client acknowledged a `SETTINGS` frame that advertised `limit`: from now on it applies.
    func maxConcurrentStreamsAcknowledged(_ limit: Int) {
        self.enforcedMaxConcurrentStreams = limit
    }

    /// Called when a `GOAWAY` frame is written: one the simulator did not send itself came from nio-http2 for a
    /// protocol error, after which APNs drops the connection, so close it once the frame is out.
    func goAwayWritten(_ written: EventLoopFuture<Void>) {
        guard !self.hasSentGoAway else { return }
        if !self.countedProtocolError {
            self.countedProtocolError = true
            self.store.recorder.withStatistics { $0.protocolErrors += 1 }
        }
        written.assumeIsolated().whenComplete { _ in self.close() }
    }
}
