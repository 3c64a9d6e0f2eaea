extension SimulatorCertificateAuthority {
    /// Whether a server built with ``serverTLSConfiguration(clientCertificates:applicationProtocols:)`` asks for
    /// client certificates.
    public enum ClientCertificatePolicy: Sendable, Hashable {
        /// The server does not ask for client certificates.
        case none
        /// The server asks; a presented certificate must chain to this CA, but a connection without one is accepted.
        case optional
        /// The server asks, and the handshake fails without a certificate from this CA.
        case required
    }
}
