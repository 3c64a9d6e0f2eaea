import NIOCore
import Testing

@testable import HeraldHTTP2

private struct Waiter: Identifiable, Hashable {
    let id: Int
}

private typealias Machine = HTTP2PoolStateMachine<Waiter>

private func makeMachine(
    maxConnections: Int = 4,
    maxStreamsPerConnection: Int = 1000,
    maxQueued: Int = 100,
    failWaitersAfterConnectFailures: Int = 0
) -> Machine {
    Machine(
        configuration: .init(
            maxConnections: maxConnections,
            maxConcurrentStreamsPerConnection: maxStreamsPerConnection,
            maxQueuedRequests: maxQueued,
            backoff: HTTP2ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(30), multiplier: 2, jitter: 0),
            failWaitersAfterConnectFailures: failWaitersAfterConnectFailures
        )
    )
}

private let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
private let later = start + .seconds(30)

extension Machine.ExecuteAction {
    var dispatchedTo: HTTP2ConnectionID? {
        if case .dispatch(let id) = self { return id }
        return nil
    }

    var connect: HTTP2ConnectionID? {
        if case .enqueued(let connect, _) = self { return connect }
        return nil
    }

    var isEnqueued: Bool {
        if case .enqueued = self { return true }
        return false
    }

    var rejection: HTTP2ClientError? {
        if case .reject(let error) = self { return error }
        return nil
    }
}

/// SplitMix64: a reproducible generator, so a failing seed fails again.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Brings up one ready connection with `maxStreams`, returning its ID.
private func readyConnection(_ machine: inout Machine, maxStreams: Int, waiterID: Int = 10_000) throws -> HTTP2ConnectionID {
    let connect = machine.execute(Waiter(id: waiterID), deadline: later).connect
    let id = try #require(connect)
    let actions = machine.connectionReady(id, maxConcurrentStreams: maxStreams)
    #expect(actions.dispatch.map(\.waiter.id) == [waiterID])
    return id
}

@Suite("HTTP2PoolStateMachine")
struct HTTP2PoolStateMachineTests {
    @Test("the first request opens one connection and waits; further requests do not open more while it connects")
    func lazyConnect() throws {
        var machine = makeMachine()
        let first = machine.execute(Waiter(id: 1), deadline: later)
        guard case .enqueued(let connect?, let timer?) = first else {
            Issue.record("expected enqueue with a new connection, got \(first)")
            return
        }
        #expect(timer == later)
        let second = machine.execute(Waiter(id: 2), deadline: later)
        guard case .enqueued(nil, nil) = second else {
            Issue.record("expected a plain enqueue, got \(second)")
            return
        }
        #expect(machine.statistics.pendingConnections == 1)
        #expect(machine.statistics.queuedRequests == 2)

        let ready = machine.connectionReady(connect, maxConcurrentStreams: 10)
        #expect(ready.dispatch.map(\.waiter.id) == [1, 2])
        #expect(ready.dispatch.allSatisfy { $0.connection == connect })
        #expect(ready.connect.isEmpty)
        #expect(machine.statistics == HTTP2PoolStatistics(openConnections: 1, streamsInFlight: 2, streamCapacity: 10))
    }

    @Test("a ready connection takes requests directly up to its limit, then requests queue and the pool grows")
    func capacityAccounting() throws {
        var machine = makeMachine(maxConnections: 2)
        let first = try readyConnection(&machine, maxStreams: 3)
        let step1 = machine.execute(Waiter(id: 1), deadline: later)
        #expect(step1.dispatchedTo == first)
        let step2 = machine.execute(Waiter(id: 2), deadline: later)
        #expect(step2.dispatchedTo == first)
        let overflow = machine.execute(Waiter(id: 3), deadline: later)
        let second = try #require(overflow.connect)
        #expect(second != first)
        #expect(machine.statistics.streamsInFlight == 3)

        // The freed stream goes to the queued request, on the same connection.
        let finished = machine.streamFinished(on: first, retry: nil, connectionUsable: true)
        #expect(finished.dispatch.map(\.waiter.id) == [3])
        #expect(finished.dispatch.first?.connection == first)
        #expect(machine.statistics.queuedRequests == 0)
    }

    @Test("the pool grows to maxConnections while every connection is full, and no further")
    func growthIsBounded() throws {
        var machine = makeMachine(maxConnections: 3)
        var opened: [HTTP2ConnectionID] = []
        if let connect = machine.execute(Waiter(id: 0), deadline: later).connect {
            opened.append(connect)
        }
        for id in 1..<10 {
            _ = machine.execute(Waiter(id: id), deadline: later)
        }
        // Each connection announces 1 stream (like APNs before authentication): all stay full.
        var index = 0
        while index < opened.count {
            let actions = machine.connectionReady(opened[index], maxConcurrentStreams: 1)
            #expect(actions.dispatch.count == 1)
            opened.append(contentsOf: actions.connect)
            index += 1
        }
        #expect(opened.count == 3)
        #expect(machine.statistics.openConnections == 3)
        #expect(machine.statistics.streamsInFlight == 3)
        #expect(machine.statistics.queuedRequests == 7)
    }

    @Test("a burst opens several connections at once, as many as the waiting requests need at the known stream limit")
    func burstGrowsInOneRoundTrip() throws {
        var machine = makeMachine(maxConnections: 4, maxStreamsPerConnection: 10, maxQueued: 1000)
        let first = try readyConnection(&machine, maxStreams: 10)
        for id in 0..<9 {
            #expect(machine.execute(Waiter(id: id), deadline: later).dispatchedTo == first)
        }
        // The first connection is full. Waiting requests open connections while they outnumber
        // what those being opened will take (10 each): 25 waiting need three more.
        var opened: [HTTP2ConnectionID] = []
        for id in 100..<125 {
            if let connect = machine.execute(Waiter(id: id), deadline: later).connect {
                opened.append(connect)
            }
        }
        #expect(opened.count == 3)
        #expect(machine.statistics.pendingConnections == 3)
        // The pool limit holds however many wait.
        for id in 200..<300 {
            let action = machine.execute(Waiter(id: id), deadline: later)
            guard case .enqueued(nil, _) = action else {
                Issue.record("expected a plain enqueue, got \(action)")
                return
            }
        }
        var dispatched = 0
        for connect in opened {
            dispatched += machine.connectionReady(connect, maxConcurrentStreams: 10).dispatch.count
        }
        #expect(dispatched == 30)
        #expect(machine.statistics.openConnections == 4)
    }

    @Test("when the first connection reports its limit with a burst waiting, the connections the burst needs open at once")
    func firstReadinessOpensWhatTheBurstNeeds() throws {
        var machine = makeMachine(maxConnections: 8, maxStreamsPerConnection: 100, maxQueued: 10_000)
        // Before any connection is ready the pool learns the server with one attempt.
        let first = try #require(machine.execute(Waiter(id: 0), deadline: later).connect)
        for id in 1..<450 {
            #expect(machine.execute(Waiter(id: id), deadline: later).connect == nil)
        }
        // 100 of 450 go out on the first connection; the 350 left need four more of 100 streams.
        let ready = machine.connectionReady(first, maxConcurrentStreams: 100)
        #expect(ready.dispatch.count == 100)
        #expect(ready.connect.count == 4)
        #expect(Set(ready.connect).count == 4)
        #expect(machine.statistics.pendingConnections == 4)
        var dispatched = 0
        for connect in ready.connect {
            let actions = machine.connectionReady(connect, maxConcurrentStreams: 100)
            dispatched += actions.dispatch.count
            #expect(actions.connect.isEmpty)
        }
        #expect(dispatched == 350)
        #expect(machine.statistics.queuedRequests == 0)
        #expect(machine.statistics.openConnections == 5)
    }

    @Test("a burst on a new connection: nothing before its first SETTINGS, one stream at a limit of 1, then what each new limit allows")
    func burstKeepsToTheLimitFromTheFirstSettings() throws {
        var machine = makeMachine(maxConnections: 1, maxStreamsPerConnection: 1000, maxQueued: 1000)
        let first = machine.execute(Waiter(id: 0), deadline: later)
        let id = try #require(first.connect)
        for waiter in 1..<50 {
            let action = machine.execute(Waiter(id: waiter), deadline: later)
            guard case .enqueued(nil, _) = action else {
                Issue.record("expected a plain enqueue while connecting, got \(action)")
                return
            }
        }
        #expect(machine.statistics.streamsInFlight == 0)

        // APNs before authentication: one stream, and the next request only once it ends.
        let ready = machine.connectionReady(id, maxConcurrentStreams: 1)
        #expect(ready.dispatch.map(\.waiter.id) == [0])
        let next = machine.streamFinished(on: id, retry: nil, connectionUsable: true)
        #expect(next.dispatch.map(\.waiter.id) == [1])
        #expect(machine.statistics.streamsInFlight == 1)
        #expect(machine.statistics.queuedRequests == 48)

        // Raised to 10: nine more at once.
        let raised = machine.maxConcurrentStreamsChanged(id, to: 10)
        #expect(raised.dispatch.map(\.waiter.id) == Array(2...10))
        #expect(machine.statistics.streamsInFlight == 10)

        // Lowered to 3 with 10 in flight: the queue waits until fewer than 3 are in flight.
        let lowered = machine.maxConcurrentStreamsChanged(id, to: 3)
        #expect(lowered.dispatch.isEmpty)
        for _ in 0..<7 {
            let finished = machine.streamFinished(on: id, retry: nil, connectionUsable: true)
            #expect(finished.dispatch.isEmpty)
        }
        let freed = machine.streamFinished(on: id, retry: nil, connectionUsable: true)
        #expect(freed.dispatch.map(\.waiter.id) == [11])
        #expect(machine.statistics.streamsInFlight == 3)
        #expect(machine.statistics.queuedRequests == 38)
    }

    @Test("whatever the order of events, no connection gets a stream before its first SETTINGS or beyond its current limit", arguments: [1, 2, 3, 4])
    func neverAboveTheLimit(seed: UInt64) throws {
        struct Model {
            /// `nil` until the connection's first SETTINGS.
            var limit: Int?
            var inFlight = 0
        }
        var generator = SeededGenerator(seed: seed)
        var machine = makeMachine(maxConnections: 3, maxStreamsPerConnection: 6, maxQueued: 10_000)
        var model: [HTTP2ConnectionID: Model] = [:]
        var nextWaiter = 0
        var dispatched = 0

        func record(_ connection: HTTP2ConnectionID) {
            guard let limit = model[connection]?.limit else {
                Issue.record("stream dispatched to \(connection) before its first SETTINGS")
                return
            }
            #expect(model[connection]!.inFlight < limit, "stream dispatched to \(connection) beyond its limit of \(limit)")
            model[connection]!.inFlight += 1
            dispatched += 1
        }
        func apply(_ actions: Machine.Actions) {
            for connection in actions.connect {
                model[connection] = Model()
            }
            for (_, connection) in actions.dispatch {
                record(connection)
            }
            #expect(actions.close.isEmpty)
        }

        for _ in 0..<3_000 {
            let connecting = model.filter { $0.value.limit == nil }.map(\.key).sorted { $0.rawValue < $1.rawValue }
            let ready = model.filter { $0.value.limit != nil }.map(\.key).sorted { $0.rawValue < $1.rawValue }
            let busy = model.filter { $0.value.inFlight > 0 }.map(\.key).sorted { $0.rawValue < $1.rawValue }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                switch machine.execute(Waiter(id: nextWaiter), deadline: later) {
                case .dispatch(let connection):
                    record(connection)
                case .enqueued(let connect, _):
                    if let connect { model[connect] = Model() }
                case .reject(let error):
                    Issue.record("unexpected rejection \(error)")
                }
                nextWaiter += 1
            case 4 where !connecting.isEmpty:
                let connection = connecting.randomElement(using: &generator)!
                let limit = Int.random(in: 0...4, using: &generator)
                model[connection]!.limit = limit
                apply(machine.connectionReady(connection, maxConcurrentStreams: limit))
            case 5 where !ready.isEmpty:
                let connection = ready.randomElement(using: &generator)!
                let limit = Int.random(in: 0...8, using: &generator)
                // The pool applies the local cap of 6 on top of the server's limit.
                model[connection]!.limit = min(limit, 6)
                apply(machine.maxConcurrentStreamsChanged(connection, to: limit))
            case 6..<10 where !busy.isEmpty:
                let connection = busy.randomElement(using: &generator)!
                model[connection]!.inFlight -= 1
                apply(machine.streamFinished(on: connection, retry: nil, connectionUsable: true))
            default:
                break
            }
        }
        // The walk did exercise the pool, not just queue everything.
        #expect(dispatched > 100)
    }

    @Test("warming up opens one connection when the pool has none, and nothing otherwise")
    func warmUp() throws {
        var machine = makeMachine(maxConnections: 4, maxStreamsPerConnection: 100)
        let warmed = machine.warmUp()
        let id = try #require(warmed.connect.first)
        #expect(warmed.connect.count == 1)
        #expect(warmed.dispatch.isEmpty)
        // While it connects, and once it is ready with nothing waiting, nothing more opens.
        #expect(machine.warmUp().connect.isEmpty)
        let ready = machine.connectionReady(id, maxConcurrentStreams: 100)
        #expect(ready.connect.isEmpty)
        #expect(ready.dispatch.isEmpty)
        #expect(machine.warmUp().connect.isEmpty)
        #expect(machine.statistics.openConnections == 1)
        // The burst's first request goes straight to the warm connection.
        #expect(machine.execute(Waiter(id: 1), deadline: later).dispatchedTo == id)
        // Only draining connections left: warming up opens a fresh one; after shutdown, nothing.
        _ = machine.goAwayReceived(id)
        #expect(machine.warmUp().connect.count == 1)
        _ = machine.shutdown()
        #expect(machine.warmUp().connect.isEmpty)
    }

    @Test("requests spread over connections with free streams")
    func spreading() throws {
        var machine = makeMachine(maxConnections: 2, maxStreamsPerConnection: 10)
        let first = try #require(machine.execute(Waiter(id: 0), deadline: later).connect)
        _ = machine.execute(Waiter(id: 1), deadline: later)
        // The first connection is full at once (limit 1) and a request still waits: a second one opens.
        let firstReady = machine.connectionReady(first, maxConcurrentStreams: 1)
        #expect(firstReady.dispatch.map(\.waiter.id) == [0])
        let second = try #require(firstReady.connect.first)
        let secondReady = machine.connectionReady(second, maxConcurrentStreams: 10)
        #expect(secondReady.dispatch.map(\.waiter.id) == [1])
        _ = machine.maxConcurrentStreamsChanged(first, to: 10)
        _ = machine.streamFinished(on: first, retry: nil, connectionUsable: true)
        _ = machine.streamFinished(on: second, retry: nil, connectionUsable: true)
        #expect(machine.statistics.streamsInFlight == 0)

        var perConnection: [HTTP2ConnectionID: Int] = [:]
        for id in 10..<18 {
            if let connection = machine.execute(Waiter(id: id), deadline: later).dispatchedTo {
                perConnection[connection, default: 0] += 1
            }
        }
        #expect(perConnection[first] == 4)
        #expect(perConnection[second] == 4)
    }

    @Test("the local cap applies on top of the server's limit")
    func localCap() throws {
        var machine = makeMachine(maxStreamsPerConnection: 2)
        let id = try readyConnection(&machine, maxStreams: 1000)
        let step3 = machine.execute(Waiter(id: 1), deadline: later)
        #expect(step3.dispatchedTo == id)
        let step4 = machine.execute(Waiter(id: 2), deadline: later)
        #expect(step4.isEnqueued)
        #expect(machine.statistics.streamCapacity == 2)
    }

    @Test("raising SETTINGS_MAX_CONCURRENT_STREAMS dispatches waiting requests at once")
    func settingsRaised() throws {
        var machine = makeMachine(maxConnections: 1)
        let id = try readyConnection(&machine, maxStreams: 1)
        for waiter in 1...3 {
            let step5 = machine.execute(Waiter(id: waiter), deadline: later)
            #expect(step5.isEnqueued)
        }
        let actions = machine.maxConcurrentStreamsChanged(id, to: 100)
        #expect(actions.dispatch.map(\.waiter.id) == [1, 2, 3])
        #expect(machine.statistics.streamsInFlight == 4)
    }

    @Test("lowering SETTINGS_MAX_CONCURRENT_STREAMS holds new streams until in-flight ones drop below it")
    func settingsLowered() throws {
        var machine = makeMachine(maxConnections: 1)
        let id = try readyConnection(&machine, maxStreams: 5)
        for waiter in 1...4 {
            let step6 = machine.execute(Waiter(id: waiter), deadline: later)
            #expect(step6.dispatchedTo == id)
        }
        let step7 = machine.execute(Waiter(id: 5), deadline: later)
        #expect(step7.isEnqueued)
        let step8 = machine.maxConcurrentStreamsChanged(id, to: 2)
        #expect(step8.dispatch.isEmpty)
        // 5 in flight, limit 2: three must finish before anything new starts.
        for _ in 0..<3 {
            let step9 = machine.streamFinished(on: id, retry: nil, connectionUsable: true)
            #expect(step9.dispatch.isEmpty)
        }
        let step10 = machine.streamFinished(on: id, retry: nil, connectionUsable: true)
        #expect(step10.dispatch.map(\.waiter.id) == [5])
        #expect(machine.statistics.streamsInFlight == 2)
    }

    @Test("a limit of 0 stops new streams on that connection")
    func settingsZero() throws {
        var machine = makeMachine(maxConnections: 1)
        let id = try readyConnection(&machine, maxStreams: 10)
        _ = machine.maxConcurrentStreamsChanged(id, to: 0)
        _ = machine.streamFinished(on: id, retry: nil, connectionUsable: true)
        let step11 = machine.execute(Waiter(id: 1), deadline: later)
        #expect(step11.isEnqueued)
    }

    @Test("GOAWAY: no new streams there, retried requests go to a new connection, the old one closes after its last stream")
    func goAway() throws {
        var machine = makeMachine()
        let old = try readyConnection(&machine, maxStreams: 10)
        _ = machine.execute(Waiter(id: 1), deadline: later)
        _ = machine.execute(Waiter(id: 2), deadline: later)
        #expect(machine.statistics.streamsInFlight == 3)

        let goAway = machine.goAwayReceived(old)
        #expect(goAway.close.isEmpty)
        #expect(goAway.connect.isEmpty)  // nothing waits yet
        #expect(machine.statistics.drainingConnections == 1)

        // A stream above lastStreamID comes back for a retry: it needs a new connection.
        let retried = machine.streamFinished(on: old, retry: (Waiter(id: 2), later), connectionUsable: false)
        let fresh = try #require(retried.connect.first)
        #expect(retried.dispatch.isEmpty)
        // Streams below lastStreamID complete normally.
        let step12 = machine.streamFinished(on: old, retry: nil, connectionUsable: false)
        #expect(step12.close.isEmpty)
        let step13 = machine.streamFinished(on: old, retry: nil, connectionUsable: false)
        #expect(step13.close == [old])

        let ready = machine.connectionReady(fresh, maxConcurrentStreams: 10)
        #expect(ready.dispatch.map(\.waiter.id) == [2])
        #expect(ready.dispatch.first?.connection == fresh)
        #expect(machine.statistics.drainingConnections == 0)
    }

    @Test("retried requests go to the front of the queue and bypass the queue limit")
    func retryPriority() throws {
        var machine = makeMachine(maxConnections: 1, maxQueued: 2)
        let id = try readyConnection(&machine, maxStreams: 1)
        let step14 = machine.execute(Waiter(id: 1), deadline: later)
        #expect(step14.isEnqueued)
        let step15 = machine.execute(Waiter(id: 2), deadline: later)
        #expect(step15.isEnqueued)
        let step16 = machine.execute(Waiter(id: 3), deadline: later)
        #expect(step16.rejection?.kind == .tooManyQueued)
        let actions = machine.streamFinished(on: id, retry: (Waiter(id: 10_000), later), connectionUsable: true)
        #expect(actions.dispatch.map(\.waiter.id) == [10_000])
        #expect(machine.statistics.queuedRequests == 2)
    }

    @Test("streams ending together free their slots at once; their retries keep their order at the front")
    func batchedStreamEnds() throws {
        var machine = makeMachine(maxConnections: 1)
        // The connection's first stream carries readyConnection's waiter.
        let id = try readyConnection(&machine, maxStreams: 4)
        for waiter in 0..<3 {
            #expect(machine.execute(Waiter(id: waiter), deadline: later).dispatchedTo == id)
        }
        for waiter in 3..<6 {
            #expect(machine.execute(Waiter(id: waiter), deadline: later).isEnqueued)
        }
        let actions = machine.streamsFinished(
            on: id, count: 3, retries: [(Waiter(id: 1), later), (Waiter(id: 2), later)], connectionUsable: true)
        // Three free slots: the two retries first, in order, then the oldest waiter.
        #expect(actions.dispatch.map(\.waiter.id) == [1, 2, 3])
        #expect(machine.statistics.streamsInFlight == 4)
        #expect(machine.statistics.queuedRequests == 2)

        let draining = machine.streamsFinished(on: id, count: 4, retries: [], connectionUsable: false)
        #expect(draining.dispatch.isEmpty)
        #expect(draining.close == [id])
    }

    @Test("the queue limit rejects with tooManyQueued, which is retryable and unprocessed")
    func queueLimit() throws {
        var machine = makeMachine(maxQueued: 3)
        for waiter in 0..<3 {
            let step17 = machine.execute(Waiter(id: waiter), deadline: later)
            #expect(step17.isEnqueued)
        }
        let error = try #require(machine.execute(Waiter(id: 3), deadline: later).rejection)
        #expect(error.kind == .tooManyQueued)
        #expect(error.isRetryable)
        #expect(!error.mayHaveBeenProcessed)
    }

    @Test("a connection that closes while ready is forgotten and replaced when requests wait")
    func connectionClosed() throws {
        var machine = makeMachine(maxConnections: 1)
        let id = try readyConnection(&machine, maxStreams: 1)
        let step18 = machine.execute(Waiter(id: 1), deadline: later)
        #expect(step18.isEnqueued)
        // Its stream fails with the connection (not usable any more)…
        let finished = machine.streamFinished(on: id, retry: nil, connectionUsable: false)
        #expect(finished.dispatch.isEmpty)
        #expect(finished.close == [id])
        let replacement = try #require(finished.connect.first)
        #expect(replacement != id)
        // …and the late close report changes nothing.
        let closed = machine.connectionClosed(id, wasReady: true, reason: "reset by peer")
        #expect(closed.connect.isEmpty)
        #expect(closed.scheduleReconnect == nil)
        let step19 = machine.connectionReady(replacement, maxConcurrentStreams: 1)
        #expect(step19.dispatch.map(\.waiter.id) == [1])
    }

    @Test("failed connection attempts back off exponentially up to the maximum, and success resets the backoff")
    func backoffProgression() throws {
        var machine = makeMachine()
        var id = try #require(machine.execute(Waiter(id: 1), deadline: later).connect)
        var delays: [Duration] = []
        for _ in 0..<5 {
            let failed = machine.connectionClosed(id, wasReady: false, reason: "connection refused")
            let reconnect = try #require(failed.scheduleReconnect)
            #expect(reconnect.connection == id)
            delays.append(reconnect.delay)
            #expect(machine.statistics.pendingConnections == 1)
            // Nothing else opens while backing off.
            let step20 = machine.execute(Waiter(id: 100 + delays.count), deadline: later)
            #expect(step20.connect == nil)
            id = try #require(machine.backoffElapsed(id).connect.first)
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)])
        #expect(machine.statistics.consecutiveConnectFailures == 5)

        _ = machine.connectionReady(id, maxConcurrentStreams: 100)
        #expect(machine.statistics.consecutiveConnectFailures == 0)
        _ = machine.resetConnections()
        let next = try #require(machine.execute(Waiter(id: 999), deadline: later).connect)
        let step21 = machine.connectionClosed(next, wasReady: false, reason: "refused")
        #expect(step21.scheduleReconnect?.delay == .milliseconds(100))
    }

    @Test("the backoff delay is capped and jitter stays within its spread")
    func backoffPolicy() throws {
        let backoff = HTTP2ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(30), multiplier: 2, jitter: 0.2)
        #expect(backoff.delay(afterFailures: 1) == .milliseconds(100))
        #expect(backoff.delay(afterFailures: 9) == .milliseconds(25_600))
        #expect(backoff.delay(afterFailures: 10) == .seconds(30))
        #expect(backoff.delay(afterFailures: 10_000) == .seconds(30))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let jittered = backoff.jittered(.seconds(10), using: &generator)
            #expect(jittered >= .seconds(8) && jittered <= .seconds(12))
        }
    }

    @Test("after backoff the pool reconnects only if requests still wait")
    func backoffWithoutDemand() throws {
        var machine = makeMachine()
        let id = try #require(machine.execute(Waiter(id: 1), deadline: later).connect)
        _ = machine.connectionClosed(id, wasReady: false, reason: "refused")
        _ = machine.cancelWaiter(1)
        let step22 = machine.backoffElapsed(id)
        #expect(step22.connect.isEmpty)
        #expect(machine.statistics.pendingConnections == 0)
    }

    @Test("requests waiting while connections fail expire at their deadline with connectFailed")
    func waitersExpireWithConnectFailed() throws {
        var machine = makeMachine()
        let early = start + .seconds(1)
        let id = try #require(machine.execute(Waiter(id: 1), deadline: early).connect)
        let step23 = machine.execute(Waiter(id: 2), deadline: later)
        #expect(step23.isEnqueued)
        _ = machine.connectionClosed(id, wasReady: false, reason: "connection refused")

        let fired = machine.queueTimerFired(now: start + .seconds(2))
        #expect(fired.fail.map(\.waiter.id) == [1])
        let error = try #require(fired.fail.first?.error)
        #expect(error.kind == .connectFailed)
        #expect(error.reason.contains("connection refused"))
        #expect(error.isRetryable)
        #expect(fired.armQueueTimer == later)
        #expect(machine.statistics.queuedRequests == 1)
    }

    @Test("after enough failed attempts requests stop waiting until the next attempt is due")
    func unreachableServerFailsWaitersFast() throws {
        var machine = makeMachine(maxConnections: 1, failWaitersAfterConnectFailures: 2)
        let first = try #require(machine.execute(Waiter(id: 1), deadline: later).connect)
        let once = machine.connectionClosed(first, wasReady: false, reason: "connection refused")
        #expect(once.fail.isEmpty, "one failure: the request keeps waiting")
        let second = try #require(machine.backoffElapsed(first).connect.first)
        let twice = machine.connectionClosed(second, wasReady: false, reason: "connection refused")
        #expect(twice.fail.map(\.waiter.id) == [1])
        #expect(twice.fail.first?.error.kind == .connectFailed)
        #expect(machine.statistics.queuedRequests == 0)

        guard case .reject(let error) = machine.execute(Waiter(id: 2), deadline: later) else {
            Issue.record("a request during the backoff should fail at once")
            return
        }
        #expect(error.kind == .connectFailed)
        #expect(machine.backoffElapsed(second).connect.isEmpty, "nobody waits: no attempt")
        let third = machine.execute(Waiter(id: 3), deadline: later)
        #expect(third.connect != nil, "once the backoff is over the next request waits and opens the next attempt")
        #expect(third.isEnqueued)
    }

    @Test("a ready connection keeps requests waiting whatever the failed attempts")
    func readyConnectionKeepsWaiters() throws {
        var machine = makeMachine(maxConnections: 2, failWaitersAfterConnectFailures: 1)
        _ = try readyConnection(&machine, maxStreams: 1)
        let step = machine.execute(Waiter(id: 1), deadline: later)
        #expect(step.isEnqueued)
        let opened = try #require(step.connect)
        let closed = machine.connectionClosed(opened, wasReady: false, reason: "connection refused")
        #expect(closed.fail.isEmpty)
        #expect(machine.statistics.queuedRequests == 1)
    }

    @Test("requests waiting for a stream expire with deadlineExceeded when connections work")
    func waitersExpireWithDeadline() throws {
        var machine = makeMachine(maxConnections: 1)
        _ = try readyConnection(&machine, maxStreams: 1)
        let step24 = machine.execute(Waiter(id: 1), deadline: start + .seconds(1))
        #expect(step24.isEnqueued)
        let fired = machine.queueTimerFired(now: start + .seconds(1))
        #expect(fired.fail.map(\.waiter.id) == [1])
        #expect(fired.fail.first?.error.kind == .deadlineExceeded)
        #expect(fired.fail.first?.error.mayHaveBeenProcessed == false)
        #expect(fired.armQueueTimer == nil)
    }

    @Test("the queue timer is armed again only for an earlier deadline, and never busier than the sweep interval")
    func queueTimerArming() throws {
        var machine = makeMachine(maxConnections: 1)
        _ = try readyConnection(&machine, maxStreams: 1)
        guard case .enqueued(_, let first) = machine.execute(Waiter(id: 1), deadline: start + .seconds(5)) else { return }
        #expect(first == start + .seconds(5))
        guard case .enqueued(_, let second) = machine.execute(Waiter(id: 2), deadline: start + .seconds(9)) else { return }
        #expect(second == nil)
        guard case .enqueued(_, let third) = machine.execute(Waiter(id: 3), deadline: start + .seconds(2)) else { return }
        #expect(third == start + .seconds(2))
        let fired = machine.queueTimerFired(now: start + .seconds(2))
        #expect(fired.fail.map(\.waiter.id) == [3])
        #expect(fired.armQueueTimer == start + .seconds(5))
        let busy = machine.queueTimerFired(now: start + .seconds(5) - .nanoseconds(1))
        #expect(busy.fail.isEmpty)
        #expect(busy.armQueueTimer == start + .seconds(5) - .nanoseconds(1) + .milliseconds(10))
    }

    @Test("cancelling removes a queued request only")
    func cancel() throws {
        var machine = makeMachine(maxConnections: 1)
        let id = try readyConnection(&machine, maxStreams: 1)
        let step25 = machine.execute(Waiter(id: 1), deadline: later)
        #expect(step25.isEnqueued)
        let step26 = machine.cancelWaiter(1)
        #expect(step26 == Waiter(id: 1))
        let step27 = machine.cancelWaiter(1)
        #expect(step27 == nil)
        let step28 = machine.streamFinished(on: id, retry: nil, connectionUsable: true)
        #expect(step28.dispatch.isEmpty)
    }

    @Test("resetConnections drains ready connections, closes idle ones now, and later requests use a new connection")
    func reset() throws {
        var machine = makeMachine(maxConnections: 2)
        let busy = try readyConnection(&machine, maxStreams: 1)
        let idle = try #require(machine.execute(Waiter(id: 1), deadline: later).connect)
        let idleReady = machine.connectionReady(idle, maxConcurrentStreams: 1)
        #expect(idleReady.dispatch.map(\.waiter.id) == [1])
        _ = machine.streamFinished(on: idle, retry: nil, connectionUsable: true)

        let actions = machine.resetConnections()
        #expect(actions.close == [idle])
        #expect(actions.connect.isEmpty)  // nothing waits
        #expect(machine.statistics.drainingConnections == 1)

        let next = machine.execute(Waiter(id: 2), deadline: later)
        let fresh = try #require(next.connect)
        #expect(fresh != busy && fresh != idle)
        let busyFinished = machine.streamFinished(on: busy, retry: nil, connectionUsable: true)
        #expect(busyFinished.close == [busy])
        #expect(busyFinished.dispatch.isEmpty)
        let freshReady = machine.connectionReady(fresh, maxConcurrentStreams: 10)
        #expect(freshReady.dispatch.map(\.waiter.id) == [2])
    }

    @Test("resetConnections with requests waiting opens a replacement at once")
    func resetWithWaiters() throws {
        var machine = makeMachine(maxConnections: 1)
        let old = try readyConnection(&machine, maxStreams: 1)
        _ = machine.execute(Waiter(id: 1), deadline: later)
        let actions = machine.resetConnections()
        let fresh = try #require(actions.connect.first)
        #expect(fresh != old)
        #expect(actions.close.isEmpty)  // its stream is still in flight
    }

    @Test("shutdown fails queued requests, closes every connection and rejects new requests")
    func shutdown() throws {
        var machine = makeMachine(maxConnections: 1)
        let id = try readyConnection(&machine, maxStreams: 1)
        _ = machine.execute(Waiter(id: 1), deadline: later)
        _ = machine.execute(Waiter(id: 2), deadline: later)
        let actions = machine.shutdown()
        #expect(actions.fail.map(\.waiter.id) == [1, 2])
        #expect(actions.fail.allSatisfy { $0.error.kind == .shutdown && !$0.error.isRetryable })
        #expect(actions.close == [id])
        let step35 = machine.execute(Waiter(id: 3), deadline: later)
        #expect(step35.rejection?.kind == .shutdown)
        let retried = machine.streamFinished(on: id, retry: (Waiter(id: 0), later), connectionUsable: true)
        #expect(retried.fail.map(\.waiter.id) == [0])
        #expect(retried.connect.isEmpty)
        let step36 = machine.connectionReady(HTTP2ConnectionID(rawValue: 77), maxConcurrentStreams: 1)
        #expect(step36.close == [HTTP2ConnectionID(rawValue: 77)])
    }
}
