/// Escapes user text for the XML bodies of WNS and MPNS notifications.
///
/// Titles, messages and template results come from publishers, so any of them may
/// hold markup characters or characters XML 1.0 forbids. Both services parse the
/// body and answer `400` to XML that is not well formed, which would make one odd
/// title a permanent failure; escaping keeps every text deliverable.
///
/// | character | in text | in an attribute value |
/// |---|---|---|
/// | `&` `<` `>` `"` `'` | `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` | the same |
/// | tab, line feed, carriage return | kept | `&#9;` `&#10;` `&#13;` (attribute-value normalization would turn them into spaces) |
/// | other C0 controls, U+FFFE, U+FFFF | left out (no XML 1.0 document may contain them, escaped or not) | left out |
public enum XMLEscaping {
    /// `text` escaped for use as element content.
    public static func text(_ text: String) -> String {
        escape(text, inAttribute: false)
    }

    /// `value` escaped for use inside a quoted attribute value (either quote).
    public static func attribute(_ value: String) -> String {
        escape(value, inAttribute: true)
    }

    private static func escape(_ input: String, inAttribute: Bool) -> String {
        // Most texts need nothing; checking first avoids rebuilding them.
        guard input.unicodeScalars.contains(where: { needsWork($0, inAttribute: inAttribute) }) else { return input }
        var output = String.UnicodeScalarView()
        output.reserveCapacity(input.unicodeScalars.count + 16)
        for scalar in input.unicodeScalars {
            switch scalar {
            case "&": output.append(contentsOf: "&amp;".unicodeScalars)
            case "<": output.append(contentsOf: "&lt;".unicodeScalars)
            case ">": output.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": output.append(contentsOf: "&quot;".unicodeScalars)
            case "'": output.append(contentsOf: "&apos;".unicodeScalars)
            case "\t" where inAttribute: output.append(contentsOf: "&#9;".unicodeScalars)
            case "\n" where inAttribute: output.append(contentsOf: "&#10;".unicodeScalars)
            case "\r" where inAttribute: output.append(contentsOf: "&#13;".unicodeScalars)
            default:
                if isAllowed(scalar) { output.append(scalar) }
            }
        }
        return String(output)
    }

    private static func needsWork(_ scalar: Unicode.Scalar, inAttribute: Bool) -> Bool {
        switch scalar {
        case "&", "<", ">", "\"", "'": return true
        case "\t", "\n", "\r": return inAttribute
        default: return !isAllowed(scalar)
        }
    }

    /// XML 1.0 `Char`: `#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]`.
    /// Swift strings never hold surrogates, so only the C0 controls and U+FFFE/U+FFFF remain to refuse.
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 { return value == 0x09 || value == 0x0A || value == 0x0D }
        return value != 0xFFFE && value != 0xFFFF
    }
}
