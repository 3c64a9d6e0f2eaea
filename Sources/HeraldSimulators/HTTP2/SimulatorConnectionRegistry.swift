import NIOCore
import Synchronization

/// The open connections of one HTTP/2 simulator, for the actions that reach all of them (`GOAWAY`, reset, stop),
/// and the counters of what its connections did.
///
/// Every critical section is a few dictionary or integer operations; stream counts only come here when a connection
/// reaches a new peak, so the lock stays off the request path.
final class SimulatorConnectionRegistry: Sendable {
    /// What the mutex guards.
    private struct State {
        /// Open connections by channel identity.
        var connections: [ObjectIdentifier: SimulatorHTTP2ConnectionHandle] = [:]
        var accepted = 0
        var maxOpenStreams = 0
        var goAwaysSent = 0
    }

    private let state = Mutex(State())

    /// Connections currently open.
    var openCount: Int {
        self.state.withLock { $0.connections.count }
    }

    /// Counts a TCP connection the moment it is accepted, before TLS, so refused handshakes count too.
    func connectionAccepted() {
        self.state.withLock { $0.accepted += 1 }
    }

    /// Adds `connection` until its channel closes; must be called on the channel's event loop.
    func register(_ connection: SimulatorHTTP2Connection) {
        let channel = connection.channel
        let handle = SimulatorHTTP2ConnectionHandle(
            channel: channel,
            state: NIOLoopBound(connection, eventLoop: channel.eventLoop)
        )
        let key = ObjectIdentifier(channel)
        self.state.withLock { $0.connections[key] = handle }
        channel.closeFuture.whenComplete { _ in
            _ = self.state.withLock { $0.connections.removeValue(forKey: key) }
        }
    }

    /// Notes that one connection has `count` streams open at once.
    func recordOpenStreams(_ count: Int) {
        self.state.withLock { $0.maxOpenStreams = max($0.maxOpenStreams, count) }
    }

    /// Counts a `GOAWAY` the simulator sent.
    func goAwaySent() {
        self.state.withLock { $0.goAwaysSent += 1 }
    }

    /// Copies the counters into a simulator's statistics.
    func fill(_ statistics: inout some SimulatorConnectionStatistics) {
        self.state.withLock { state in
            statistics.connections = state.accepted
            statistics.maxConcurrentStreamsObserved = state.maxOpenStreams
            statistics.goAwaysSent = state.goAwaysSent
        }
    }

    /// Sends every open connection a graceful `GOAWAY` (`NO_ERROR`, last stream id = the last stream it served, with
    /// `debugText` as debug data when given); each connection closes once its in-flight streams are answered.
    func sendGoAway(debugText: String?) {
        for connection in self.open() {
            connection.execute { state in
                state.goAway(lastStreamID: state.lastProcessedStreamID, debugText: debugText)
            }
        }
    }

    /// Closes every open connection abruptly (TCP RST), without any HTTP/2 goodbye.
    func resetAll() {
        for connection in self.open() {
            connection.execute { $0.reset() }
        }
    }

    /// Closes every open connection and waits for the closes.
    func closeAll() async {
        // Closed together: a TLS close waits for the peer's close_notify (or a timeout), which must not add up.
        await withTaskGroup(of: Void.self) { group in
            for connection in self.open() {
                group.addTask { try? await connection.channel.close() }
            }
        }
    }

    private func open() -> [SimulatorHTTP2ConnectionHandle] {
        self.state.withLock { Array($0.connections.values) }
    }
}
