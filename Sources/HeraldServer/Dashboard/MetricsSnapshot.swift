import HeraldCore

/// The samples of one Prometheus text exposition, as the dashboard's stream sends them.
///
/// It is read back from the very text `GET /metrics` serves, rather than from the instruments, so
/// that every name and label on the page is one a scraper sees. Histogram buckets are left out
/// (the page shows no latency distribution), their `_sum` and `_count` stay.
struct MetricsSnapshot: Sendable, Equatable {
    /// One sample line.
    struct Sample: Sendable, Equatable {
        /// The metric name, as in `/metrics`.
        var name: String
        /// The labels, sorted by name.
        var labels: [(name: String, value: String)]
        /// The value (`nil` for NaN and infinities, which JSON cannot carry).
        var value: Double?

        /// The labels as the page's `data-labels` attributes carry them: `a="x",b="y"`, sorted by
        /// name, values escaped as in the exposition format.
        var labelText: String {
            labels.map { "\($0.name)=\"\(Self.escaped($0.value))\"" }.joined(separator: ",")
        }

        static func == (lhs: Sample, rhs: Sample) -> Bool {
            lhs.name == rhs.name && lhs.labels.elementsEqual(rhs.labels, by: { $0 == $1 }) && lhs.value == rhs.value
        }

        static func escaped(_ value: String) -> String {
            var text = ""
            for character in value {
                switch character {
                case "\\": text += "\\\\"
                case "\"": text += "\\\""
                case "\n": text += "\\n"
                default: text.append(character)
                }
            }
            return text
        }
    }

    /// The samples, in the order of the text.
    var samples: [Sample]

    /// Parses the text exposition format; lines it cannot read are skipped, not fatal.
    init(prometheusText: String) {
        samples = []
        for line in prometheusText.split(separator: "\n", omittingEmptySubsequences: true) {
            guard !line.hasPrefix("#"), let sample = Self.parse(Substring(line)) else { continue }
            if sample.name.hasSuffix("_bucket") { continue }
            samples.append(sample)
        }
    }

    /// `name{a="x",b="y"} value [timestamp]` or `name value`.
    static func parse(_ line: Substring) -> Sample? {
        var rest = line[...]
        let nameEnd = rest.firstIndex(where: { $0 == "{" || $0 == " " }) ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard !name.isEmpty else { return nil }
        rest = rest[nameEnd...]
        var labels: [(name: String, value: String)] = []
        if rest.first == "{" {
            rest = rest.dropFirst()
            while true {
                rest = rest.drop(while: { $0 == " " || $0 == "," })
                if rest.first == "}" {
                    rest = rest.dropFirst()
                    break
                }
                guard let equals = rest.firstIndex(of: "=") else { return nil }
                let labelName = String(rest[..<equals]).trimmingWhitespace()
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                var value = ""
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if character == "\"" {
                        closed = true
                        break
                    }
                    if character == "\\", let next = rest.first {
                        rest = rest.dropFirst()
                        value.append(next == "n" ? "\n" : next)
                    } else {
                        value.append(character)
                    }
                }
                guard closed else { return nil }
                labels.append((labelName, value))
            }
        }
        let fields = rest.split(separator: " ", omittingEmptySubsequences: true)
        guard let valueText = fields.first else { return nil }
        let value: Double?
        switch valueText {
        case "NaN", "+Inf", "-Inf": value = nil
        default:
            guard let number = Double(valueText) else { return nil }
            value = number
        }
        labels.sort { $0.name < $1.name }
        return Sample(name: name, labels: labels, value: value)
    }

    /// `{"time":<unix ms>,"samples":[{"name":…,"labels":{…},"key":"a=\"x\"","value":…},…]}`.
    func json(timeMillis: Int64) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("time")
        writer.number(timeMillis)
        writer.key("samples")
        writer.beginArray()
        for sample in samples {
            writer.beginObject()
            writer.key("name")
            writer.string(sample.name)
            writer.key("labels")
            writer.beginObject()
            for label in sample.labels {
                writer.key(label.name)
                writer.string(label.value)
            }
            writer.endObject()
            writer.key("key")
            writer.string(sample.labelText)
            writer.key("value")
            if let value = sample.value {
                // Counters and gauges of whole numbers read best without a fraction.
                if value == value.rounded(), abs(value) < 1e15 { writer.number(Int64(value)) } else { writer.raw("\(value)") }
            } else {
                writer.null()
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.text
    }
}
