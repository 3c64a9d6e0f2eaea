/// A snapshot of an ``HTTP2ConnectionPool``'s connections, streams and queue, for metrics.
public struct HTTP2PoolStatistics: Sendable, Hashable {
    /// Connections that are ready and accept new streams.
    public var openConnections: Int

    /// Connections being opened or waiting out a reconnect backoff.
    public var pendingConnections: Int

    /// Connections that take no new streams (GOAWAY, reset) but still finish their in-flight ones.
    public var drainingConnections: Int

    /// Requests sent on a stream and not yet answered.
    public var streamsInFlight: Int

    /// Requests waiting for a free stream.
    public var queuedRequests: Int

    /// The sum of the stream limits of the open connections.
    public var streamCapacity: Int

    /// Connection attempts that failed in a row since the last successful one.
    public var consecutiveConnectFailures: Int

    /// Creates a snapshot.
    ///
    /// - Parameters:
    ///   - openConnections: Ready connections.
    ///   - pendingConnections: Connections being opened or backing off.
    ///   - drainingConnections: Connections finishing their last streams.
    ///   - streamsInFlight: Requests on a stream.
    ///   - queuedRequests: Requests waiting for a stream.
    ///   - streamCapacity: The sum of the open connections' stream limits.
    ///   - consecutiveConnectFailures: Failed connection attempts in a row.
    public init(
        openConnections: Int = 0,
        pendingConnections: Int = 0,
        drainingConnections: Int = 0,
        streamsInFlight: Int = 0,
        queuedRequests: Int = 0,
        streamCapacity: Int = 0,
        consecutiveConnectFailures: Int = 0
    ) {
        self.openConnections = openConnections
        self.pendingConnections = pendingConnections
        self.drainingConnections = drainingConnections
        self.streamsInFlight = streamsInFlight
        self.queuedRequests = queuedRequests
        self.streamCapacity = streamCapacity
        self.consecutiveConnectFailures = consecutiveConnectFailures
    }
}
