import Foundation
import HeraldCore
import HeraldIntake
import HTTPTypes
import Hummingbird
import NIOCore

/// Applies the authorization rules of §2.2: HTTP Basic users per realm, API tokens
/// (`Authorization: Bearer`), and source-address ACLs; then the realm's rate limit
/// (`server.rate_limit`), once it is known who the client is.
///
/// A request with a Bearer token is checked against the tokens wherever it goes. Without one, the
/// Basic users decide when there are any; else, once any token exists, credentials are required;
/// else the ACLs decide, as in rs/pushd.
public struct Authorizer: Sendable {
    /// A user allowed to use some realms.
    public struct User: Sendable {
        /// The password, compared in constant time.
        let password: [UInt8]
        /// The realms the user may use.
        let realms: Set<Realm>

        /// Creates a user.
        public init(password: String, realms: Set<Realm>) {
            self.password = Array(password.utf8)
            self.realms = realms
        }
    }

    private let users: [String: User]
    private let acls: [Realm: AccessList]
    /// The per-client limits, checked after authorization.
    let rateLimiter: RateLimiter
    /// The API tokens, when the node has them (the HTTP front's authorizer; not UDP's).
    let tokens: TokenCache?
    private let clock: WallClock

    /// Creates an authorizer; with neither users, tokens nor ACLs every realm is open, and without
    /// a `rateLimiter` nothing is limited.
    public init(
        users: [String: User], acls: [Realm: AccessList], rateLimiter: RateLimiter = .unlimited, tokens: TokenCache? = nil,
        clock: WallClock = .system
    ) {
        self.users = users
        self.acls = acls
        self.rateLimiter = rateLimiter
        self.tokens = tokens
        self.clock = clock
    }

    /// Whether Basic authentication is configured.
    public var usesBasicAuth: Bool { !users.isEmpty }

    /// Whether an ACL is configured for `realm`.
    public func hasACL(for realm: Realm) -> Bool { acls[realm] != nil }

    /// Checks an HTTP request against `realm` (rule 2 when users exist, else rule 3), then, when
    /// `rateLimited`, takes a token from the client's bucket in `realm`.
    ///
    /// The limit comes last so that refused credentials spend nobody's tokens, and it counts an
    /// authenticated request against its user rather than its address.
    /// - Parameter rateLimited: `false` only for `GET /status`, which load balancers poll.
    /// - Returns: the scopes of the API token the request came with; `nil` for any other caller,
    ///   who is not restricted beyond the realm.
    @discardableResult
    public func authorize(_ request: Request, context: HeraldRequestContext, realm: Realm, rateLimited: Bool = true) throws(APIError) -> TokenScopes? {
        try authorize(headers: request.headers, address: context.remoteAddress, realm: realm, rateLimited: rateLimited)
    }

    /// Checks a request's `headers`, sent from `address`, against `realm`: the same rules as
    /// ``authorize(_:context:realm:rateLimited:)``, for requests served outside the router.
    @discardableResult
    func authorize(headers: HTTPFields, address: SocketAddress?, realm: Realm, rateLimited: Bool = true) throws(APIError) -> TokenScopes? {
        let client: RateLimitClient
        var scopes: TokenScopes?
        if let header = headers[.authorization], let secret = Self.parseBearer(header) {
            let token: APIToken
            switch tokens?.token(forSecret: secret, now: clock.nowSeconds()) ?? .invalid {
            case .valid(let found): token = found
            case .invalid: throw .invalidToken
            case .unknown: throw .unavailable
            }
            guard token.scopes.realms.contains(realm) else { throw .forbidden }
            client = .token(token.name)
            scopes = token.scopes
        } else if !usesBasicAuth, let tokens, tokens.contents != .none {
            // Fail closed while starting: whether credentials are required is not known yet.
            throw tokens.contents == .some ? .bearerRequired : .unavailable
        } else if usesBasicAuth {
            guard let header = headers[.authorization] else { throw .unauthorized }
            guard let (name, password) = Self.parseBasic(header) else { throw .bare(.badRequest) }
            guard let user = users[name], Self.constantTimeEqual(user.password, Array(password.utf8)) else {
                throw .unauthorized
            }
            guard user.realms.contains(realm) else { throw .forbidden }
            client = .user(name)
        } else {
            try checkACL(realm: realm, address: address)
            client = RateLimitClient(address: address?.ipAddress)
        }
        if rateLimited { try admit(realm, client: client) }
        return scopes
    }

    /// The secret of `Bearer <secret>`; `nil` when the header is not a Bearer credential.
    static func parseBearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let secret = parts[1].trimmingCharacters(in: .whitespaces)
        return secret.isEmpty ? nil : secret
    }

    /// Checks the ACL of `realm` only: CORS preflights and requests without credentials (rule 4).
    public func checkACL(realm: Realm, address: SocketAddress?) throws(APIError) {
        guard let acl = acls[realm] else { return }
        guard let text = address?.ipAddress, let ip = IPAddress(text), acl.allows(ip) else { throw .forbidden }
    }

    /// Whether a credential-less message (UDP, compat front-ends) from `address` may use `realm`.
    public func allowsWithoutCredentials(realm: Realm, address: SocketAddress?) -> Bool {
        (try? checkACL(realm: realm, address: address)) != nil
    }

    /// Splits `Basic base64(user:password)`; `nil` when it is not well-formed Basic.
    static func parseBasic(_ header: String) -> (String, String)? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        return (String(decoded[..<colon]), String(decoded[decoded.index(after: colon)...]))
    }

    /// Compares without an early exit, so timing does not reveal how much of a password matched.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
