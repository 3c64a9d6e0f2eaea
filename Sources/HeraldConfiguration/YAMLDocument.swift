import HeraldCore
import OrderedCollections
import Yams

/// Turns YAML text into ``ConfigValue``s, keeping keys in file order.
enum YAMLDocument {
    /// The top-level mapping of `text` (empty for an empty document); errors name `file` and the line.
    static func parse(_ text: String, file: String) throws(ConfigurationError) -> OrderedDictionary<String, ConfigValue> {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ConfigurationError(key: file, describe(error))
        } catch {
            throw ConfigurationError(key: file, "invalid YAML: \(error)")
        }
        guard let root else { return [:] }
        switch try value(of: root, path: "", file: file) {
        case .null: return [:]
        case .map(let map): return map
        default:
            throw ConfigurationError(key: file, "\(at(root.mark))the top level must be a mapping of keys (server:, providers:, ...)")
        }
    }

    /// Converts a node; `path` is its dotted key path, for errors.
    private static func value(of node: Node, path: String, file: String) throws(ConfigurationError) -> ConfigValue {
        switch node {
        case .scalar(let scalar):
            // Only plain `~`, `null` and empty resolve to null; a quoted "null" is text.
            return node.tag.rawValue == Tag.Name.null.rawValue ? .null : .scalar(scalar.string)
        case .sequence(let sequence):
            var items: [ConfigValue] = []
            for (index, item) in sequence.enumerated() {
                items.append(try value(of: item, path: "\(path)[\(index)]", file: file))
            }
            return .list(items)
        case .mapping(let mapping):
            return .map(try map(mapping, path: path, file: file))
        case .alias:
            // Yams resolves aliases while composing; this is unreachable in practice.
            throw ConfigurationError(key: path.isEmpty ? file : path, "\(at(node.mark))unresolved YAML alias")
        }
    }

    /// Converts a mapping, applying YAML merge keys (`<<: *defaults`); explicit keys win over merged ones.
    private static func map(_ mapping: Node.Mapping, path: String, file: String) throws(ConfigurationError) -> OrderedDictionary<String, ConfigValue> {
        var merged = OrderedDictionary<String, ConfigValue>()
        var explicit = OrderedDictionary<String, ConfigValue>()
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode else {
                throw ConfigurationError(key: path.isEmpty ? file : path, "\(at(keyNode.mark))keys must be plain text, not a list or mapping")
            }
            if keyNode.tag.rawValue == Tag.Name.merge.rawValue {
                for source in try mergeSources(valueNode, path: path, file: file) {
                    for (key, value) in source where merged[key] == nil { merged[key] = value }
                }
                continue
            }
            let key = keyScalar.string
            let childPath = path.isEmpty ? key : "\(path).\(key)"
            explicit[key] = try value(of: valueNode, path: childPath, file: file)
        }
        for (key, value) in explicit { merged[key] = value }
        return merged
    }

    /// The mappings a merge key names, earliest first (a list of mappings merges in order, the first winning).
    private static func mergeSources(_ node: Node, path: String, file: String) throws(ConfigurationError) -> [OrderedDictionary<String, ConfigValue>] {
        let nodes: [Node]
        if case .sequence(let sequence) = node { nodes = Array(sequence) } else { nodes = [node] }
        var sources: [OrderedDictionary<String, ConfigValue>] = []
        for item in nodes {
            guard case .mapping(let mapping) = item else {
                throw ConfigurationError(key: path.isEmpty ? file : path, "\(at(item.mark))a merge key (<<) must name a mapping or a list of mappings")
            }
            sources.append(try map(mapping, path: path, file: file))
        }
        return sources
    }

    /// `line L, column C: ` for a mark, or nothing.
    private static func at(_ mark: Mark?) -> String {
        guard let mark else { return "" }
        return "line \(mark.line), column \(mark.column): "
    }

    /// One line describing a Yams error, with its position.
    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let during = context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? ""
            return "invalid YAML at line \(mark.line), column \(mark.column): \(problem)\(during)"
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "\"\($0)\"" }.joined(separator: ", ")
            return "invalid YAML at line \(context.mark.line), column \(context.mark.column): duplicate key \(keys)"
        case .reader(let problem, _, _, _):
            return "invalid YAML: \(problem)"
        default:
            return "invalid YAML: \(String(describing: error).split(separator: "\n").first.map(String.init) ?? "")"
        }
    }
}
