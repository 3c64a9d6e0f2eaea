import HeraldStore
import Logging

/// The leases suj-pusher's services hold in Herald's store, and how often they are renewed.
///
/// With several nodes on one database, each node holds one numbered node lease, whose number
/// names its processing list in Redis, and one node at a time holds the channel lease. A lease not
/// renewed for ``duration`` (a node that died) goes to whoever asks next, and with it the dead
/// node's processing list.
struct SujPusherLeases: Sendable {
    let store: any FrontEndLeases
    /// This node's owner name: the store's restart-stable one (SQLite), else one of this process.
    let owner: String
    let logger: Logger

    /// How long a lease lasts without renewal.
    var duration: Duration = .seconds(30)
    /// How often a held lease is renewed (and dead nodes' lists looked for).
    var renewal: Duration = .seconds(10)
    /// The most nodes that may take messages from one Redis list at once.
    static let maxNodes = 64
    /// The name of the channel lease.
    static let channel = "suj_pusher.channel"

    /// The name of node `number`'s lease.
    static func node(_ number: Int) -> String { "suj_pusher.node.\(number)" }

    /// Takes or renews `name`; `false` when another node holds it or the store cannot be reached.
    func hold(_ name: String) async -> Bool {
        do {
            return try await store.holdLease(name, owner: owner, duration: duration)
        } catch {
            logger.warning("cannot take a lease in the store", metadata: ["lease": "\(name)", "error": "\(error)"])
            return false
        }
    }

    /// Gives `name` up, so another node may take it at once.
    func release(_ name: String) async {
        try? await store.releaseLease(name, owner: owner)
    }

    /// The lowest node number this node can hold; waits while none is free (or the store is down).
    func claimNode() async throws -> Int {
        while true {
            for number in 0..<Self.maxNodes {
                if await hold(Self.node(number)) { return number }
            }
            logger.error("no suj-pusher node number free (or the store is unreachable); trying again", metadata: ["nodes": "\(Self.maxNodes)"])
            try await Task.sleep(for: renewal)
        }
    }
}
