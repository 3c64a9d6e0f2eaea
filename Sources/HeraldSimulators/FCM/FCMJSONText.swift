/// Writes the few fixed-shape JSON texts the FCM simulator answers with.
enum FCMJSONText {
    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var json = "\""
        json.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: json.unicodeScalars.append(scalar)
            }
        }
        return json + "\""
    }

    /// An object of the given members, in order; values must already be JSON.
    static func object(_ members: [(key: String, json: String)]) -> String {
        "{" + members.map { quoted($0.key) + ":" + $0.json }.joined(separator: ",") + "}"
    }
}
