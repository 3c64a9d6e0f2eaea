/// The server stopped before it reported a bound port.
struct HTTP1SimulatorServerError: Error, CustomStringConvertible {
    let name: String
    var description: String { "the \(name) simulator could not start listening" }
}
