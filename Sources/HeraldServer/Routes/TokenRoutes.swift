import HeraldCore
import HeraldIntake
import HTTPTypes
import Hummingbird

/// `POST /tokens`, `GET /tokens`, `DELETE /tokens/<name>` (realm `admin`): API tokens issued,
/// listed and revoked without a restart.
///
/// Only a caller no app restricts may manage tokens (a Basic user, an open server, or a token
/// without providers and events), and a token can grant no realm it lacks itself: an app's token
/// must not be able to mint a wider one.
struct TokenRoutes: Sendable {
    let intake: Intake
    let authorizer: Authorizer
    /// Drops a revoked token from this node's cache at once, before the next read.
    let tokens: TokenCache?

    func register(on router: Router<HeraldRequestContext>) {
        router.post("/tokens") { request, context -> Response in
            let scopes = try authorizer.authorize(request, context: context, realm: .admin)
            try scopes?.requireUnscoped("tokens")
            return try await create(request, grantor: scopes)
        }
        router.get("/tokens") { request, context -> Response in
            try authorizer.authorize(request, context: context, realm: .admin)?.requireUnscoped("tokens")
            let list = try await answering { () async throws(IntakeError) in try await intake.tokens() }
            var writer = JSONWriter()
            writer.beginArray()
            for token in list { Self.write(token, to: &writer) }
            writer.endArray()
            return .json(writer.text)
        }
        router.delete("/tokens/:name") { request, context -> Response in
            try authorizer.authorize(request, context: context, realm: .admin)?.requireUnscoped("tokens")
            let name = context.parameters.get("name") ?? ""
            guard try await answering({ () async throws(IntakeError) in try await intake.revokeToken(named: name) }) else {
                throw APIError.json(.notFound, "Unknown token \(name)")
            }
            tokens?.remove(named: name)
            return .noContent
        }
    }

    /// Reads `{"name", "realms", "providers"?, "events"?, "expires_in"?}` and answers 201 with the
    /// token and, this once, its secret in `token`.
    func create(_ request: Request, grantor: TokenScopes?) async throws -> Response {
        let buffer = try await request.collectBody()
        let body: BodyValue
        do {
            body = try JSONBodyParser.parse(buffer.readableBytesView)
        } catch {
            throw APIError.badRequest("Invalid JSON: \(error)")
        }
        guard body.objectMembers != nil else { throw APIError.badRequest("Expected an object") }
        guard case .string(let name)? = body["name"] else { throw APIError.invalidValue("name") }
        let realmNames = try Self.strings(body["realms"], field: "realms") ?? []
        var realms: Set<Realm> = []
        for raw in realmNames {
            guard let realm = Realm(rawValue: raw) else { throw APIError.invalidValue("realms") }
            realms.insert(realm)
        }
        if let grantor, !realms.isSubset(of: grantor.realms) {
            throw APIError(refusal: .outOfScope("the realms \(realms.subtracting(grantor.realms).map(\.rawValue).sorted().joined(separator: ", "))"))
        }
        let providers = try Self.strings(body["providers"], field: "providers").map(Set.init)
        let events = try Self.strings(body["events"], field: "events")
        var lifetime: Duration?
        switch body["expires_in"] {
        case nil, .null?: lifetime = nil
        case .string(let text)?, .number(let text)?:
            guard let parsed = APIToken.lifetime(text) else { throw APIError.invalidValue("expires_in") }
            lifetime = parsed
        default: throw APIError.invalidValue("expires_in")
        }
        let scopes = TokenScopes(realms: realms, providers: providers, events: events)
        let created = try await answering { () async throws(IntakeError) in
            try await intake.createToken(name: name, scopes: scopes, expiresIn: lifetime)
        }
        // Usable on this node at once; the others read it within a second.
        tokens?.insert(created.token, digest: created.digest)
        var writer = JSONWriter()
        Self.write(created.token, to: &writer, secret: created.secret)
        var response = Response.json(writer.text, status: .created)
        response.headers[.location] = "/tokens/\(created.token.name)"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// A list of strings, or `nil` when the field is absent or null.
    static func strings(_ value: BodyValue?, field: String) throws(APIError) -> [String]? {
        switch value {
        case nil, .null?: return nil
        case .array(let elements)?:
            var strings: [String] = []
            for element in elements {
                guard case .string(let text) = element else { throw APIError.invalidValue(field) }
                strings.append(text)
            }
            return strings
        default: throw APIError.invalidValue(field)
        }
    }

    /// A token as JSON; its secret only when it was just created.
    static func write(_ token: APIToken, to writer: inout JSONWriter, secret: String? = nil) {
        writer.beginObject()
        writer.key("name")
        writer.string(token.name)
        if let secret {
            writer.key("token")
            writer.string(secret)
        }
        writer.key("realms")
        writer.beginArray()
        for realm in token.scopes.realms.map(\.rawValue).sorted() { writer.string(realm) }
        writer.endArray()
        writer.key("providers")
        if let providers = token.scopes.providers {
            writer.beginArray()
            for provider in providers.sorted() { writer.string(provider) }
            writer.endArray()
        } else {
            writer.null()
        }
        writer.key("events")
        if let events = token.scopes.events {
            writer.beginArray()
            for event in events { writer.string(event) }
            writer.endArray()
        } else {
            writer.null()
        }
        for (key, value) in [("created", Optional(token.createdAt)), ("expires", token.expiresAt), ("last_used", token.lastUsedAt)] {
            writer.key(key)
            if let value { writer.number(value) } else { writer.null() }
        }
        writer.endObject()
    }
}
