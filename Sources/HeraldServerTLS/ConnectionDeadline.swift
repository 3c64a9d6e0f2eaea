import Logging
import NIOCore

/// A deadline by which the client of a server connection must have sent something: when it passes,
/// the connection is closed.
///
/// The channel handlers that keep slow clients from holding connections (the TLS handshake's
/// deadline here, the request head's and body's in the HTTP front) arm and disarm one of these
/// on their channel's event loop: for every request, so arming and disarming are assignments,
/// not timers. One timer per connection runs at most once per timeout; when it fires it closes
/// the connection if the deadline has passed, schedules itself for a later deadline, and stops
/// when none is armed.
public final class ConnectionDeadline {
    private let logger: Logger
    /// When the client must have sent what it owes; `nil` while it owes nothing.
    private var expiry: NIODeadline?
    private var waitingFor = ""
    private var timer: Scheduled<Void>?
    private var timerFiresAt: NIODeadline?

    /// A deadline, not yet armed; `logger` notes each connection it closes.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Whether a deadline is running.
    public var isArmed: Bool { expiry != nil }

    /// Closes `context`'s channel `timeout` from now unless disarmed first; replaces a deadline
    /// already running. `what` is what the client is waiting to send, for the log.
    public func arm(_ context: ChannelHandlerContext, in timeout: TimeAmount, waitingFor what: String) {
        let expiry = context.eventLoop.now + timeout
        self.expiry = expiry
        waitingFor = what
        // A timer due no later than the new deadline stays: it finds the later deadline and waits on.
        if let firesAt = timerFiresAt, firesAt <= expiry { return }
        schedule(context, at: expiry)
    }

    /// Stops the running deadline, if any. A timer already scheduled finds nothing to enforce.
    public func disarm() {
        expiry = nil
    }

    /// Disarms and cancels the timer: the connection is closing, or the handler is leaving it.
    public func stop() {
        expiry = nil
        timer?.cancel()
        timer = nil
        timerFiresAt = nil
    }

    private func schedule(_ context: ChannelHandlerContext, at time: NIODeadline) {
        timer?.cancel()
        timerFiresAt = time
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: time) { [self] in
            fire(context)
        }
    }

    private func fire(_ context: ChannelHandlerContext) {
        timer = nil
        timerFiresAt = nil
        guard let expiry else { return }
        if expiry <= context.eventLoop.now {
            logger.debug("closing a connection whose client was too slow", metadata: ["waiting_for": "\(waitingFor)"])
            context.channel.close(promise: nil)
        } else {
            schedule(context, at: expiry)
        }
    }
}

@available(*, unavailable)
extension ConnectionDeadline: Sendable {}
