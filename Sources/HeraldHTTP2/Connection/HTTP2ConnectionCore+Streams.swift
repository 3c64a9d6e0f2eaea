import NIOCore
import NIOHTTP2

extension HTTP2ConnectionCore {
    /// Opens a stream for each request and flushes once.
    func openStreams(_ requests: some Sequence<HTTP2RequestContext>) {
        for request in requests {
            self.openStream(request)
        }
        self.flushIfPending()
    }

    /// Opens a stream for `request` and writes it (unflushed), or hands it straight back to the pool
    /// if this connection cannot take it now (closing, GOAWAY, or the server lowered its limit since
    /// the pool chose it).
    private func openStream(_ request: HTTP2RequestContext) {
        guard let (context, engine) = self.attachment, self.machine.canOpenStreams, !self.sentGoAway,
            self.streams.count < self.machine.maxConcurrentStreams, let streamID = engine.nextStreamID
        else {
            self.handBack(request)
            return
        }
        let stream = HTTP2StreamHandler(request: request, streamID: streamID, connection: self)
        guard request.attach(NIOLoopBound(stream, eventLoop: context.eventLoop)) else {
            // Cancelled while being dispatched; the stream ID stays unused.
            request.finish(.failure(.cancelled(mayHaveBeenProcessed: false)))
            self.delegate.streamFinished(on: self.id, retry: nil, connectionUsable: self.isUsable)
            return
        }
        self.register(stream)
        let indexingUniqueField = !self.uniqueFieldIndexed && request.request.uniqueField != nil
        self.flushPending = true
        if engine.writeRequest(of: stream, indexingUniqueField: indexingUniqueField) {
            if indexingUniqueField {
                self.uniqueFieldIndexed = true
            }
        } else {
            stream.abandon()
        }
    }

    /// Resets a stream whose request was given up (deadline, cancellation, invalid response); the
    /// engine then closes it, which releases it.
    func reset(_ stream: HTTP2StreamHandler) {
        guard let engine = self.attachment?.engine, !stream.released else { return }
        engine.writeReset(stream.streamID)
        self.flushPending = true
        self.flushIfPending()
    }

    /// Returns a request the connection could not open a stream for to the pool, unsent.
    func handBack(_ request: HTTP2RequestContext) {
        if request.noteUnsentBounce() {
            self.delegate.streamFinished(on: self.id, retry: request, connectionUsable: self.isUsable)
        } else {
            request.finish(.failure(.connectionClosed("no connection could take the request")))
            self.delegate.streamFinished(on: self.id, retry: nil, connectionUsable: self.isUsable)
        }
    }

    /// Whether the connection can still take streams.
    var isUsable: Bool {
        guard let (context, engine) = self.attachment else { return false }
        return self.machine.canOpenStreams && !self.sentGoAway && engine.nextStreamID != nil && context.channel.isActive
    }

    /// A stream is done with this connection; tell the pool (with the request, if it must be
    /// retried) now, or at the end of the current read together with the others.
    func streamReleased(_ stream: HTTP2StreamHandler, retry: HTTP2RequestContext?) {
        self.streams.removeValue(forKey: stream.streamID)
        if self.reading {
            self.releasedWhileReading += 1
            if let retry { self.retriesWhileReading.append(retry) }
        } else {
            self.delegate.streamFinished(on: self.id, retry: retry, connectionUsable: self.isUsable)
        }
    }

    /// Reports the streams released during a read to the pool, in one call.
    func reportReleases() {
        guard self.releasedWhileReading > 0 else { return }
        let count = self.releasedWhileReading
        let retries = self.retriesWhileReading
        self.releasedWhileReading = 0
        self.retriesWhileReading = []
        self.delegate.streamsFinished(on: self.id, count: count, retries: retries, connectionUsable: self.isUsable)
    }

    /// Flushes what was written, unless a read is in progress: its end flushes once for all.
    func flushIfPending() {
        guard self.flushPending, !self.reading, let engine = self.attachment?.engine else { return }
        self.flushPending = false
        engine.flush()
    }

    /// Adds a stream to the table, bringing the deadline sweep forward if it expires first.
    private func register(_ stream: HTTP2StreamHandler) {
        self.streams.updateValue(stream, forKey: stream.streamID)
        if self.sweep.map({ stream.deadline < $0.deadline }) ?? true {
            self.armSweep(at: stream.deadline)
        }
    }

    /// Replaces the pending sweep with one at `deadline`.
    private func armSweep(at deadline: NIODeadline) {
        guard let context = self.attachment?.context else { return }
        self.sweep?.task.cancel()
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.sweepDeadlines()
        }
        self.sweep = (deadline, task)
    }

    /// Fails and resets the streams whose deadline passed, then arms the sweep for the next one.
    private func sweepDeadlines() {
        self.sweep = nil
        let now = NIODeadline.now()
        var expired: [HTTP2StreamHandler] = []
        var earliest: NIODeadline?
        for stream in self.streams.values where stream.isPending {
            if stream.deadline <= now {
                expired.append(stream)
            } else {
                earliest = min(earliest ?? stream.deadline, stream.deadline)
            }
        }
        // Expire after the scan: resetting a stream may release it, which edits `streams`.
        for stream in expired {
            stream.deadlineExceeded()
        }
        if let earliest {
            self.armSweep(at: max(earliest, now + Self.sweepInterval))
        }
    }
}
