import HeraldConfiguration
import HeraldCore
import HeraldIntake

extension Authorizer {
    /// The authorizer `server.auth` and `server.acl` describe, limiting clients with `rateLimiter`
    /// (the node's one limiter, built from `server.rate_limit`; none: nothing is limited), and
    /// checking API tokens against `tokens` when given.
    /// - Throws: ``ConfigurationError`` for an ACL entry that is no address or range.
    public init(server: HeraldConfiguration.Server, rateLimiter: RateLimiter, tokens: TokenCache? = nil) throws {
        var acls: [Realm: AccessList] = [:]
        for (realm, entries) in server.acl {
            acls[realm] = try AccessList(entries, key: "server.acl.\(realm.rawValue)")
        }
        let users = server.auth.mapValues { Authorizer.User(password: $0.password, realms: $0.realms) }
        self.init(users: users, acls: acls, rateLimiter: rateLimiter, tokens: tokens)
    }
}
