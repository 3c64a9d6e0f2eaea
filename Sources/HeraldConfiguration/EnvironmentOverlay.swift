import HeraldCore
import OrderedCollections

/// Applies `HERALD_*` environment variables to the configuration tree (`interface.md`).
///
/// Key names contain `_`, so a variable cannot be split at `_`. Instead every key the
/// configuration could hold is listed — the schema's, plus those under names the file
/// chose (providers, users, API keys) — and each variable is looked up by its spelling.
struct EnvironmentOverlay {
    /// The prefix every variable carries.
    static let prefix = "HERALD_"

    /// The provider kinds, whose option keys are the keys under each provider.
    let kinds: ProviderKindRegistry

    /// Sets every variable that names a key into `root`.
    ///
    /// - Returns: one warning per variable that named no key or several, and for each
    ///   dotted key path set, the variable that set it (for error messages).
    func apply(
        _ environment: [String: String],
        to root: inout OrderedDictionary<String, ConfigValue>
    ) -> (warnings: [String], sources: [String: String]) {
        let candidates = keysByVariable(root: root)
        var result: (warnings: [String], sources: [String: String]) = ([], [:])
        for (name, text) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix(Self.prefix) {
            guard let matches = candidates[name] else {
                result.warnings.append("\(name) does not name a configuration key; ignored")
                continue
            }
            guard matches.count == 1, let match = matches.first else {
                let paths = matches.map { $0.path.joined(separator: ".") }.sorted().joined(separator: ", ")
                result.warnings.append("\(name) matches several configuration keys (\(paths)); ignored")
                continue
            }
            if Self.set(Self.value(text, as: match.leaf), at: match.path[...], in: &root) {
                result.sources[match.path.joined(separator: ".")] = name
            }
        }
        return result
    }

    /// The variable's value for a `.scalar` or `.list` key: empty means unset (back to the default), lists split at commas.
    static func value(_ text: String, as leaf: KeyShape) -> ConfigValue {
        guard !text.isEmpty else { return .null }
        guard case .list = leaf else { return .scalar(text) }
        let items = text.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        return .list(items.map { .scalar($0) })
    }

    /// The variable name for a key path: `HERALD_` + components upper-cased, joined with `_`.
    ///
    /// Characters a shell variable cannot hold (`-` and `.` in provider names) are written `_`.
    static func variableName(_ path: [String]) -> String {
        let components = path.map { component in
            String(component.uppercased().unicodeScalars.map { scalar -> Character in
                ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
            })
        }
        return prefix + components.joined(separator: "_")
    }

    /// Every settable key path, by variable name; more than one path under a name is ambiguous.
    func keysByVariable(root: OrderedDictionary<String, ConfigValue>) -> [String: [(path: [String], leaf: KeyShape)]] {
        var keys: [(path: [String], leaf: KeyShape)] = []
        collect(.section(ConfigurationSchema.root), path: [], value: .map(root), into: &keys)
        var byName: [String: [(path: [String], leaf: KeyShape)]] = [:]
        for key in keys {
            byName[Self.variableName(key.path), default: []].append(key)
        }
        return byName
    }

    /// Lists the leaves under `shape`, with `value` the tree's current value there.
    private func collect(_ shape: KeyShape, path: [String], value: ConfigValue?, into keys: inout [(path: [String], leaf: KeyShape)]) {
        switch shape {
        case .scalar:
            keys.append((path, .scalar))
        case .list:
            keys.append((path, .list))
        case .section(let fields):
            let map = Self.map(value)
            for (key, field) in fields {
                collect(field, path: path + [key], value: map?[key], into: &keys)
            }
        case .entries(let inner):
            for (key, entry) in Self.map(value) ?? [:] {
                collect(inner, path: path + [key], value: entry, into: &keys)
            }
        case .anything:
            break
        case .providers:
            for (name, entry) in Self.map(value) ?? [:] {
                let options = Self.map(entry)
                var optionKeys = ConfigurationSchema.providerCommonKeys
                if case .scalar(let kindName)? = options?["kind"], let kind = kinds.kind(named: kindName) {
                    optionKeys.formUnion(kind.optionKeys)
                }
                for key in optionKeys {
                    collectPresent(path: path + [name, key], value: options?[key], into: &keys)
                }
            }
        }
    }

    /// Lists the leaves of a provider option, whose shape only the value in the file tells.
    ///
    /// A list in the file makes the variable a comma-separated list; a mapping
    /// (`tile_mapping`) exposes the keys it has.
    private func collectPresent(path: [String], value: ConfigValue?, into keys: inout [(path: [String], leaf: KeyShape)]) {
        switch value {
        case .map(let map):
            for (key, entry) in map { collectPresent(path: path + [key], value: entry, into: &keys) }
        case .list:
            keys.append((path, .list))
        case .scalar, .null, nil:
            keys.append((path, .scalar))
        }
    }

    /// The mapping in `value`, if it is one.
    private static func map(_ value: ConfigValue?) -> OrderedDictionary<String, ConfigValue>? {
        if case .map(let map)? = value { return map }
        return nil
    }

    /// Sets `value` at `path`, creating absent mappings; `false` when the file has a non-mapping on the way.
    ///
    /// That case is left alone: reading the file reports the misplaced value by its key.
    static func set(_ value: ConfigValue, at path: ArraySlice<String>, in map: inout OrderedDictionary<String, ConfigValue>) -> Bool {
        guard let key = path.first else { return false }
        if path.count == 1 {
            map[key] = value
            return true
        }
        var child: OrderedDictionary<String, ConfigValue>
        switch map[key] {
        case nil, .null:
            // Unsetting a key must not create its section: an empty `HERALD_SERVER_UDP_PORT` must not turn UDP on.
            if value == .null { return true }
            child = [:]
        case .map(let existing): child = existing
        case .scalar, .list: return false
        }
        guard set(value, at: path.dropFirst(), in: &child) else { return false }
        map[key] = .map(child)
        return true
    }
}
