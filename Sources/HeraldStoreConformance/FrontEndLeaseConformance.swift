import HeraldStore
import Testing

/// What a front-end's named leases promise (`FrontEndLeases`).
public enum FrontEndLeaseConformance {
    /// One owner at a time: another owner is refused while the lease runs, the holder renews it,
    /// and a released lease is free at once.
    public static func oneOwnerAtATime(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            #expect(try await store.holdLease("suj_pusher.channel", owner: "a", duration: .seconds(60)))
            #expect(try await !store.holdLease("suj_pusher.channel", owner: "b", duration: .seconds(60)))
            #expect(try await store.holdLease("suj_pusher.channel", owner: "a", duration: .seconds(60)))
            // Another name is another lease.
            #expect(try await store.holdLease("suj_pusher.node.1", owner: "b", duration: .seconds(60)))
            // Releasing someone else's lease does nothing.
            try await store.releaseLease("suj_pusher.channel", owner: "b")
            #expect(try await !store.holdLease("suj_pusher.channel", owner: "b", duration: .seconds(60)))
            try await store.releaseLease("suj_pusher.channel", owner: "a")
            #expect(try await store.holdLease("suj_pusher.channel", owner: "b", duration: .seconds(60)))
        }
    }

    /// A lease that was not renewed in time goes to whoever asks next.
    public static func expiredLeaseIsTakenOver(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            #expect(try await store.holdLease("suj_pusher.node.0", owner: "dead", duration: .milliseconds(1)))
            try await Task.sleep(for: .milliseconds(50))
            #expect(try await store.holdLease("suj_pusher.node.0", owner: "alive", duration: .seconds(60)))
            #expect(try await !store.holdLease("suj_pusher.node.0", owner: "dead", duration: .seconds(60)))
        }
    }
}
