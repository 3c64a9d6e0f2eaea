import HeraldCore
import HeraldIntake

extension TokenScopes {
    /// The provider a listing is narrowed to for this token: the one `requested`, when the token
    /// covers it; else the app's only provider. Listings (feedback, dead letters) are paged by the
    /// store, so an app of several providers names one rather than having pages filtered after
    /// the fact.
    /// - Throws: 403 for a provider the token does not cover; 400 when the app has several and
    ///   `requested` is `nil`.
    func provider(narrowing requested: String?) throws(APIError) -> String? {
        guard let providers else { return requested }
        if let requested {
            guard providers.contains(requested) else { throw APIError(refusal: .outOfScope("the provider \(requested)")) }
            return requested
        }
        guard providers.count == 1, let only = providers.first else {
            throw APIError.badRequest("This token's app has several providers: name one with provider=")
        }
        return only
    }

    /// Refuses what an app's token may not see at all (the node's metrics: every app's counters).
    func requireUnscoped(_ what: String) throws(APIError) {
        if isAppScoped { throw APIError(refusal: .outOfScope(what)) }
    }
}
