import HeraldCore

/// The stored form of a token's scopes, shared by every backend so that their `api_tokens` rows
/// read the same and a row written by one decodes the same in another.
///
/// Realms are a comma-separated list of raw values in byte order; providers and events are JSON
/// arrays of strings, `NULL` for "every one". Providers are a set and are written sorted; events
/// are patterns kept in the operator's order.
public enum TokenColumns {
    /// The `realms` column of `realms`: raw values in byte order, so that equal sets store equal text.
    public static func realms(_ realms: Set<Realm>) -> String {
        realms.map(\.rawValue).sorted().joined(separator: ",")
    }

    /// The realms of a `realms` column, or `nil` when it names one this Herald does not know.
    public static func realms(from text: String) -> Set<Realm>? {
        // An empty set is stored as the empty text, which `split` would not tell from ",".
        guard !text.isEmpty else { return [] }
        var realms: Set<Realm> = []
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let realm = Realm(rawValue: String(raw)) else { return nil }
            realms.insert(realm)
        }
        return realms
    }

    /// The `providers` or `events` column of `list`: a JSON array, `nil` (every one) as `NULL`.
    ///
    /// Callers sort a set (providers) first, so that equal scopes store equal text.
    public static func list(_ list: [String]?) -> String? {
        guard let list else { return nil }
        var writer = JSONWriter(capacity: 16 * list.count + 2)
        writer.beginArray()
        for element in list {
            writer.string(element)
        }
        writer.endArray()
        return writer.text
    }

    /// The strings of a `providers` or `events` column; `NULL` stays `nil`.
    /// - Throws: ``StoreError/corruptRow`` when the text is not a JSON array of strings.
    public static func list(from text: String?) throws(StoreError) -> [String]? {
        guard let text else { return nil }
        guard let decoded = strings(text) else { throw StoreError.corruptRow("not a JSON array of strings: \(text)") }
        return decoded
    }

    /// A stored token from the columns of its `api_tokens` row, read the same by every backend.
    /// - Throws: ``StoreError/corruptRow`` naming the token and the column that cannot be read back.
    public static func storedToken(
        name: String, digest: String, realms realmsText: String, providers providersText: String?, events eventsText: String?,
        created: Int64, expires: Int64?, lastUsed: Int64?
    ) throws(StoreError) -> StoredToken {
        guard let realmSet = realms(from: realmsText) else {
            throw StoreError.corruptRow("api_tokens \(name): unknown realm in \(realmsText)")
        }
        // Not through `list(from:)`: the detail must name the row and the column.
        func listColumn(_ column: String, _ text: String?) throws(StoreError) -> [String]? {
            guard let text else { return nil }
            guard let decoded = strings(text) else {
                throw StoreError.corruptRow("api_tokens \(name): \(column) is not a JSON array of strings: \(text)")
            }
            return decoded
        }
        let providers = try listColumn("providers", providersText)
        let events = try listColumn("events", eventsText)
        let scopes = TokenScopes(realms: realmSet, providers: providers.map { Set($0) }, events: events)
        let token = APIToken(name: name, scopes: scopes, createdAt: created, expiresAt: expires, lastUsedAt: lastUsed)
        return StoredToken(token: token, digest: digest)
    }

    /// The elements of a JSON array of strings, or `nil` for any other text.
    private static func strings(_ text: String) -> [String]? {
        guard case .array(let elements)? = try? JSONBodyParser.parse(text) else { return nil }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element else { return nil }
            result.append(string)
        }
        return result
    }
}
