import HeraldCore
import Yams

extension ConfigValue {
    /// The value as a YAML node, mappings in key order; scalars are plain where YAML allows and quoted
    /// where they would otherwise read as something else.
    var yamlNode: Node {
        switch self {
        case .scalar(let text):
            return Node(text, .implicit, Self.style(of: text))
        case .list(let items):
            return Node(items.map(\.yamlNode))
        case .map(let map):
            return Node(map.map { (Node($0.key), $0.value.yamlNode) })
        case .null:
            return Node("~")
        }
    }

    /// Plain unless the text would read back as null, or YAML gives a meaning to its first character or
    /// to a colon or hash in it. Herald reads every other plain scalar as its text (`true`, `5`), so
    /// those need no quotes.
    private static func style(of text: String) -> Node.Scalar.Style {
        let null: Set<String> = ["", "~", "null", "Null", "NULL"]
        if null.contains(text) { return .doubleQuoted }
        guard let first = text.first else { return .doubleQuoted }
        if "*&!|>'\"%@`#,[]{}?:-".contains(first) || text.contains(": ") || text.contains(" #") || text.hasSuffix(":") {
            return .doubleQuoted
        }
        return .any
    }
}
