import NIOHTTP2

/// The life of one HTTP/2 connection as its channel handler sees it: readiness, the server's stream
/// limit, GOAWAY and keepalive.
///
/// A pure value: the handler feeds it events and performs the actions it returns (notify the pool,
/// send a PING, close), which keeps every decision unit-testable without sockets or clocks.
struct HTTP2ConnectionStateMachine {
    /// Where the connection is in its life.
    enum State: Hashable {
        /// TCP and TLS are being set up, or the server's first SETTINGS frame has not arrived.
        case connecting
        /// Streams may be opened.
        case ready
        /// The server sent GOAWAY: no new streams, in-flight ones finish.
        case draining
        /// The connection is being closed locally.
        case closing
        /// The channel is inactive.
        case closed
    }

    /// What to do after a SETTINGS frame.
    enum SettingsAction: Hashable {
        case none
        /// The first SETTINGS frame arrived: the connection is ready with this many streams.
        case ready(maxConcurrentStreams: Int)
        /// The usable stream limit changed.
        case maxConcurrentStreamsChanged(Int)
    }

    /// What to do after a GOAWAY frame.
    enum GoAwayAction: Hashable {
        case none
        /// Tell the pool to open no new streams here; in-flight ones finish.
        case drain(reason: String)
        /// The connection was never ready: close it (the pool counts it as a failed attempt).
        case close
    }

    /// What the channel went through, reported once when it becomes inactive.
    struct Closed: Hashable {
        /// Whether the connection ever became ready; if not, the pool counts a failed attempt.
        var wasReady: Bool
        /// Why it closed.
        var reason: HTTP2ConnectionCloseReason
    }

    private(set) var state: State = .connecting

    /// The server's `SETTINGS_MAX_CONCURRENT_STREAMS`; `nil` until it sends one, which means unlimited (RFC 9113 §6.5.2).
    private(set) var remoteMaxConcurrentStreams: UInt32?

    /// The lowest last-stream ID among the GOAWAY frames received; streams above it were not processed.
    private(set) var goAwayLastStreamID: HTTP2StreamID?

    /// Why the connection is closing or draining, once known.
    private(set) var closeReason: HTTP2ConnectionCloseReason?

    private let maxConcurrentStreamsCap: Int
    private var hasBeenReady = false
    private var readSinceKeepaliveTick = false
    private var awaitingPong = false

    /// Creates the state of a connection that is being opened.
    ///
    /// - Parameter maxConcurrentStreamsCap: The local cap applied on top of the server's limit.
    init(maxConcurrentStreamsCap: Int) {
        self.maxConcurrentStreamsCap = max(1, maxConcurrentStreamsCap)
    }

    /// Whether new streams may be opened now.
    var canOpenStreams: Bool {
        self.state == .ready
    }

    /// The number of concurrent streams the pool may use: 0 until the server's first SETTINGS frame has been read,
    /// then the server's limit, capped locally.
    ///
    /// Nothing goes out before that frame, not even the one stream a client could risk. Until it arrives nio-http2
    /// assumes 100 streams and would let them all out, while the frame may announce fewer: APNs announces 1 until
    /// the first authenticated request, and a server such as Python h2 ends a connection that exceeds it with
    /// GOAWAY PROTOCOL_ERROR. (Once the limit is known, nio-http2 also holds back streams over it.) Waiting costs
    /// little: servers send the frame as soon as the connection is up, so over TLS it comes with the end of the
    /// handshake. Stored rather than computed: every stream opening reads it.
    private(set) var maxConcurrentStreams = 0

    /// Whether the server declared, by GOAWAY, that it did not process `streamID`.
    func wasNotProcessed(_ streamID: HTTP2StreamID) -> Bool {
        guard let last = self.goAwayLastStreamID else { return false }
        return streamID > last
    }

    /// The TLS handshake finished; `h2` must have been selected.
    ///
    /// - Returns: `true` if the connection must be closed.
    mutating func tlsHandshakeCompleted(negotiatedProtocol: String?) -> Bool {
        guard negotiatedProtocol != "h2" else { return false }
        return self.beginClosing(.alpnMismatch(negotiatedProtocol))
    }

    /// A SETTINGS frame (not an ACK) arrived.
    ///
    /// - Parameter maxConcurrentStreams: The frame's `SETTINGS_MAX_CONCURRENT_STREAMS`, `nil` when absent (unchanged).
    mutating func receivedSettings(maxConcurrentStreams: UInt32?) -> SettingsAction {
        let before = self.maxConcurrentStreams
        if let maxConcurrentStreams {
            self.remoteMaxConcurrentStreams = maxConcurrentStreams
        }
        switch self.state {
        case .connecting:
            // The first SETTINGS frame, not channelActive, marks readiness: TLS may still fail, and
            // APNs announces its initial limit of 1 here.
            self.state = .ready
            self.hasBeenReady = true
            self.maxConcurrentStreams = self.cappedRemoteLimit
            return .ready(maxConcurrentStreams: self.maxConcurrentStreams)
        case .ready, .draining:
            // Followed down as well as up: the handler opens no stream while those in flight reach the limit.
            self.maxConcurrentStreams = self.cappedRemoteLimit
            return self.maxConcurrentStreams == before ? .none : .maxConcurrentStreamsChanged(self.maxConcurrentStreams)
        case .closing, .closed:
            return .none
        }
    }

    /// The server's limit (unlimited when it never sent one), capped locally.
    private var cappedRemoteLimit: Int {
        min(self.maxConcurrentStreamsCap, Int(self.remoteMaxConcurrentStreams ?? UInt32.max))
    }

    /// A GOAWAY frame arrived.
    ///
    /// - Parameters:
    ///   - lastStreamID: The highest stream the server may have processed.
    ///   - reason: The error code and debug reason, already rendered.
    mutating func receivedGoAway(lastStreamID: HTTP2StreamID, reason: String) -> GoAwayAction {
        // A server may send a first GOAWAY with the maximum ID and a second, lower one; the lowest counts.
        self.goAwayLastStreamID = min(self.goAwayLastStreamID ?? lastStreamID, lastStreamID)
        switch self.state {
        case .connecting:
            return self.beginClosing(.goAway(reason)) ? .close : .none
        case .ready:
            self.state = .draining
            self.closeReason = .goAway(reason)
            return .drain(reason: reason)
        case .draining, .closing, .closed:
            return .none
        }
    }

    /// Bytes were read from the network; the connection is not idle.
    mutating func receivedData() {
        self.readSinceKeepaliveTick = true
    }

    /// The keepalive timer fired (every idle PING interval).
    ///
    /// - Returns: `true` if a PING must be sent (nothing was read since the last tick).
    mutating func keepaliveTimerFired() -> Bool {
        guard self.state == .ready || self.state == .draining, !self.awaitingPong else { return false }
        if self.readSinceKeepaliveTick {
            self.readSinceKeepaliveTick = false
            return false
        }
        self.awaitingPong = true
        return true
    }

    /// The server acknowledged our PING.
    ///
    /// - Returns: `true` if a PING was outstanding (its timeout can be cancelled).
    mutating func receivedPingAck() -> Bool {
        guard self.awaitingPong else { return false }
        self.awaitingPong = false
        return true
    }

    /// The PING timeout fired.
    ///
    /// - Returns: `true` if the connection must be closed.
    mutating func pingTimeoutFired() -> Bool {
        guard self.awaitingPong else { return false }
        return self.beginClosing(.pingTimeout)
    }

    /// The connect timeout fired while waiting for readiness.
    ///
    /// - Returns: `true` if the connection must be closed.
    mutating func readyTimeoutFired() -> Bool {
        guard self.state == .connecting else { return false }
        return self.beginClosing(.readyTimeout)
    }

    /// The pool, or a detected connection error, asks to close the connection.
    ///
    /// - Returns: `true` if the channel must be closed now (not already closing).
    mutating func closeRequested(_ reason: HTTP2ConnectionCloseReason) -> Bool {
        self.beginClosing(reason)
    }

    /// The channel became inactive.
    ///
    /// - Parameter error: The last error seen on the channel, if any, to explain an unexpected close.
    /// - Returns: What to report to the pool, or `nil` if already reported.
    mutating func channelInactive(error: String?) -> Closed? {
        guard self.state != .closed else { return nil }
        self.state = .closed
        let reason = self.closeReason ?? .remoteClosed(error)
        self.closeReason = reason
        return Closed(wasReady: self.hasBeenReady, reason: reason)
    }

    private mutating func beginClosing(_ reason: HTTP2ConnectionCloseReason) -> Bool {
        switch self.state {
        case .connecting, .ready:
            self.closeReason = reason
            self.state = .closing
            return true
        case .draining:
            // Keep the GOAWAY reason: it explains the close better than "drained".
            if reason != .drained {
                self.closeReason = reason
            }
            self.state = .closing
            return true
        case .closing, .closed:
            return false
        }
    }
}
