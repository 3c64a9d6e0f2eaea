/// Leases a front-end takes by name in the store, so that of the nodes on one database exactly
/// one does what only one may do (suj-pusher's channel subscription, its Redis processing lists).
///
/// A lease's time is the store's (``StoreRuntime/clock``), so nodes agree on when it expires
/// whatever their own clocks say. An owner keeps a lease by taking it again before it expires.
public protocol FrontEndLeases: Sendable {
    /// Takes the lease `name` for `owner`, or renews it, until `duration` from now.
    ///
    /// - Returns: `true` when `owner` holds it afterwards; `false` when another owner holds a
    ///   lease that has not expired (nothing changes then).
    func holdLease(_ name: String, owner: String, duration: Duration) async throws -> Bool

    /// Gives the lease `name` up if `owner` holds it, so that another node may take it at once.
    func releaseLease(_ name: String, owner: String) async throws

    /// An owner name that the next process on this store may use at once for the leases the last
    /// one held: a store that one node owns (SQLite) has one, since whoever held its leases before
    /// is gone (a crash leaves them held, and its successor is the same node); a store that
    /// several nodes share has none, and each process is an owner of its own.
    var restartStableOwner: String? { get }
}
