import NIOCore

/// What one of the two ports does with a datagram that passed its ACL.
protocol ChoominatorHandler: Sendable {
    /// The port's name in metrics and logs (`registration`, `notification`).
    var port: String { get }

    /// Acts on one datagram.
    /// - Returns: the metric result of a datagram acted on (`accepted`, `no_recipients`).
    /// - Throws: why it was dropped; nothing changed then.
    func handle(_ datagram: ByteBuffer) async throws(ChoominatorRejection) -> String
}
