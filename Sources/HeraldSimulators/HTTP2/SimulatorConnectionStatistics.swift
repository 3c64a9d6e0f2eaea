/// The connection counters of a simulator's statistics, which ``SimulatorConnectionRegistry`` keeps and fills in.
protocol SimulatorConnectionStatistics {
    /// TCP connections accepted.
    var connections: Int { get set }
    /// The most streams any one connection had open at once.
    var maxConcurrentStreamsObserved: Int { get set }
    /// `GOAWAY` frames the simulator sent (not those nio-http2 sent by itself for a protocol error).
    var goAwaysSent: Int { get set }
}
