/// A simulated service's own logic as the shared HTTP/2 plumbing sees it: a complete request in, what its stream
/// does out.
///
/// Called synchronously on the connection's event loop, once per stream, so it must not block.
protocol SimulatorHTTP2RequestProcessor: Sendable {
    /// The per-connection state the service consults (APNs: how the connection authenticated).
    associatedtype Connection: SimulatorHTTP2Connection
    /// The service's answer.
    associatedtype Response: SimulatorHTTP2Response

    /// Bodies are kept only up to this many bytes, so that a huge upload cannot make the simulator buffer it; a
    /// longer request arrives with its length but without its body.
    static var bodyCap: Int { get }

    /// Decides what `request`, received on `connection`, gets.
    func process(_ request: SimulatorHTTP2Request, connection: Connection) -> SimulatorHTTP2Action<Response>
}
