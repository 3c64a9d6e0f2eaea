/// Whether a destination (a push service, or one host of a subscriber-addressed kind) is worth
/// sending to: a pure state machine, driven by ``ProviderBulkheads``.
///
/// After ``threshold`` consecutive connection failures or deadline expiries the breaker opens:
/// deliveries are deferred to the retry queue without a connection attempt. When the open
/// period ends, one delivery is let through as a probe; its answer closes the breaker, its
/// failure opens it again for twice as long (up to ``maxOpenDuration``).
struct CircuitBreaker: Sendable, Equatable {
    /// Where the breaker stands.
    enum State: Sendable, Equatable {
        /// Sending; `failures` consecutive failures so far.
        case closed(failures: Int)
        /// Not sending until `until` (Unix milliseconds).
        case open(until: Int64)
        /// One probe is out; everything else waits for its answer.
        case probing
    }

    /// What to do with the next delivery.
    enum Admission: Sendable, Equatable {
        /// Send it.
        case send
        /// Send it as the probe: its outcome decides whether the breaker closes.
        case probe
        /// Do not send it; try again after `until` (Unix milliseconds).
        case deferred(until: Int64)
    }

    /// A change worth logging and exporting.
    enum Transition: Sendable, Equatable {
        /// The destination stopped answering: deliveries are deferred.
        case opened
        /// It answers again.
        case closed
    }

    /// Consecutive failures that open the breaker; 0 never opens it.
    let threshold: Int
    /// The first open period.
    let openDuration: Int64
    /// The longest open period.
    let maxOpenDuration: Int64

    private(set) var state: State = .closed(failures: 0)
    /// The open period the next opening uses (doubles while probes fail).
    private var nextOpenDuration: Int64

    /// Creates a closed breaker; durations in milliseconds.
    init(threshold: Int, openDuration: Int64, maxOpenDuration: Int64) {
        self.threshold = threshold
        self.openDuration = max(1, openDuration)
        self.maxOpenDuration = max(self.openDuration, maxOpenDuration)
        self.nextOpenDuration = self.openDuration
    }

    /// Whether it is closed with no failure counted: a breaker in that state need not be kept.
    var isIdle: Bool { state == .closed(failures: 0) }

    /// Whether deliveries are being sent normally.
    var isUp: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Decides about the next delivery at `now` (Unix milliseconds).
    mutating func admit(now: Int64) -> Admission {
        switch state {
        case .closed:
            return .send
        case .open(let until) where now >= until:
            state = .probing
            return .probe
        case .open(let until):
            return .deferred(until: until)
        case .probing:
            // The probe's answer comes within its deadline; look again a moment after.
            return .deferred(until: now + openDuration)
        }
    }

    /// Counts an answer: the destination is reachable.
    mutating func recordAnswer() -> Transition? {
        let wasUp = isUp
        state = .closed(failures: 0)
        nextOpenDuration = openDuration
        return wasUp ? nil : .closed
    }

    /// Counts a connection failure or an expired deadline at `now`.
    ///
    /// - Parameter probe: whether it was the probe's outcome.
    mutating func recordFailure(now: Int64, probe: Bool) -> Transition? {
        switch state {
        case .closed(let failures):
            guard threshold > 0, failures + 1 >= threshold else {
                state = .closed(failures: failures + 1)
                return nil
            }
            open(now: now)
            return .opened
        case .probing where probe:
            open(now: now)
            return nil
        case .probing, .open:
            // A delivery sent before the breaker opened: it says nothing new.
            return nil
        }
    }

    /// Gives up the probe without an outcome (it was cancelled): the next delivery probes again.
    mutating func abandonProbe(now: Int64) {
        if state == .probing { state = .open(until: now) }
    }

    private mutating func open(now: Int64) {
        state = .open(until: now + nextOpenDuration)
        nextOpenDuration = min(nextOpenDuration * 2, maxOpenDuration)
    }
}
