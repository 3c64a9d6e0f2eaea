/// Why a record of an rs/pushd database was not imported.
public enum PushdSkipReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// `subscribers` lists an id that has no `subscriber:<id>` hash (a dangling reference).
    case missingHash = "listed in `subscribers` but no subscriber hash (dangling reference)"
    /// `subscriber:<id>` is not a hash.
    case notAHash = "subscriber key is not a hash"
    /// The id cannot be a Herald id (`[A-Za-z0-9_-]`, at most 64 characters).
    case invalidID = "invalid subscriber id"
    /// The hash has no (or an empty) `proto`.
    case missingProto = "missing proto"
    /// The hash has no (or an empty) `token`.
    case missingToken = "missing token"
    /// `created` is missing or not a whole number.
    case malformedCreated = "missing or non-numeric created"
    /// `updated` is not a whole number.
    case malformedUpdated = "non-numeric updated"
    /// `tokenmap` names another existing subscriber for this `proto:token`: that one wins.
    case duplicateToken = "duplicate token (tokenmap names another subscriber)"
    /// Another id already holds the `(proto, token)` in Herald (or earlier in the import, for two
    /// pushd tokens that are the same once normalized); that one was left alone.
    case heldInHerald = "token held by another Herald subscriber (left alone)"

    /// Declaration order: the order the summary lists reasons in (the record's own faults first).
    public static func < (lhs: PushdSkipReason, rhs: PushdSkipReason) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
