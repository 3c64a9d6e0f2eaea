import Logging
import NIOCore

/// A deadline by which the client of a server connection must have sent something: when it passes,
/// the connection is closed.
///
/// The channel handlers that keep slow clients from holding connections (the TLS handshake's
/// deadline here, the request head's and body's in the HTTP front) arm and disarm one of these
/// on their channel's event loop.
public struct ConnectionDeadline {
    private let logger: Logger
    private var timer: Scheduled<Void>?

    /// A deadline, not yet armed; `logger` notes each connection it closes.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Whether a deadline is running.
    public var isArmed: Bool { timer != nil }

    /// Closes `context`'s channel `timeout` from now unless disarmed first; replaces a deadline
    /// already running. `what` is what the client is waiting to send, for the log.
    public mutating func arm(_ context: ChannelHandlerContext, in timeout: TimeAmount, waitingFor what: String) {
        disarm()
        let logger = self.logger
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) {
            logger.debug("closing a connection whose client was too slow", metadata: ["waiting_for": "\(what)"])
            channel.close(promise: nil)
        }
    }

    /// Stops the running deadline, if any.
    public mutating func disarm() {
        timer?.cancel()
        timer = nil
    }
}
