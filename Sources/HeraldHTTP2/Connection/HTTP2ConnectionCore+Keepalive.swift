import NIOCore

extension HTTP2ConnectionCore {
    /// Checks for idleness once per idle PING interval, from readiness until the channel closes.
    func scheduleKeepalive() {
        guard let context = self.attachment?.context else { return }
        self.keepaliveTask = context.eventLoop.assumeIsolated().scheduleTask(in: self.settings.idlePingInterval) {
            self.keepaliveFired()
        }
    }

    /// Sends a PING if nothing was read since the last check, with a timeout for its answer.
    private func keepaliveFired() {
        guard let (context, engine) = self.attachment else { return }
        if self.machine.keepaliveTimerFired() {
            engine.writePing(self.pingData)
            self.flushPending = true
            self.flushIfPending()
            self.pingTimeoutTask = context.eventLoop.assumeIsolated().scheduleTask(in: self.settings.pingTimeout) {
                if self.machine.pingTimeoutFired() {
                    self.logger.info("HTTP/2 server did not answer PING; closing the connection")
                    self.attachment?.context.close(promise: nil)
                }
            }
        }
        switch self.machine.state {
        case .ready, .draining:
            self.scheduleKeepalive()
        case .connecting, .closing, .closed:
            break
        }
    }

    /// Cancels every timer of the connection: it is closing, or its handler left the pipeline.
    func cancelTimers() {
        self.readyTimeoutTask?.cancel()
        self.readyTimeoutTask = nil
        self.keepaliveTask?.cancel()
        self.keepaliveTask = nil
        self.pingTimeoutTask?.cancel()
        self.pingTimeoutTask = nil
        self.sweep?.task.cancel()
        self.sweep = nil
    }
}
