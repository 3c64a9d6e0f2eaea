/// A time as RFC 3339 text with its own UTC offset, read and written as Go's `time.Time` does in
/// JSON (compat.md §4.6): `expires` is echoed in the offset it was given in, and
/// `GET /expired-devices` writes its timestamps in the server's offset.
struct RFC3339Time: Sendable, Equatable {
    /// Go's layout, named in its parse errors.
    static let layout = "2006-01-02T15:04:05Z07:00"

    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    /// The fractional second's digits without trailing zeros, at most nine (`""`: none).
    var fraction: String
    /// Seconds east of UTC.
    var offset: Int

    /// Seconds since 1970 (UTC).
    var unixSeconds: Int64 {
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
    }

    /// The wall-clock time of `unixSeconds` at `offset` seconds east of UTC.
    init(unixSeconds: Int64, offset: Int) {
        let local = unixSeconds + Int64(offset)
        var days = local / 86_400
        var seconds = local % 86_400
        if seconds < 0 {
            seconds += 86_400
            days -= 1
        }
        (year, month, day) = Self.civil(fromDays: days)
        hour = Int(seconds / 3600)
        minute = Int(seconds % 3600 / 60)
        second = Int(seconds % 60)
        fraction = ""
        self.offset = offset
    }

    /// Go's `time.RFC3339Nano` form: fractional seconds only when non-zero, `Z` for offset 0.
    var text: String {
        var text = "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2))"
        if !fraction.isEmpty { text += "." + fraction }
        if offset == 0 {
            text += "Z"
        } else {
            let minutes = abs(offset) / 60
            text += (offset < 0 ? "-" : "+") + Self.pad(minutes / 60, 2) + ":" + Self.pad(minutes % 60, 2)
        }
        return text
    }

    /// Parses RFC 3339 text as Go's `time.Time.UnmarshalJSON` does; throws Go's message.
    init(parsing text: String) throws(GoJSONError) {
        var rest = Substring(text)
        func fail(_ element: String) -> GoJSONError {
            .time("parsing time \(Self.quoted(text)) as \(Self.quoted(Self.layout)): cannot parse \(Self.quoted(String(rest))) as \(Self.quoted(element))")
        }
        func outOfRange(_ field: String) -> GoJSONError {
            .time("parsing time \(Self.quoted(text)): \(field) out of range")
        }
        func number(_ digits: Int, _ element: String) throws(GoJSONError) -> Int {
            let prefix = rest.prefix(digits)
            guard prefix.count == digits, prefix.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(prefix) else { throw fail(element) }
            rest = rest.dropFirst(digits)
            return value
        }
        func literal(_ character: Character, _ element: String) throws(GoJSONError) {
            guard rest.first == character else { throw fail(element) }
            rest = rest.dropFirst()
        }
        year = try number(4, "2006")
        try literal("-", "-")
        month = try number(2, "01")
        try literal("-", "-")
        day = try number(2, "02")
        try literal("T", "T")
        hour = try number(2, "15")
        try literal(":", ":")
        minute = try number(2, "04")
        try literal(":", ":")
        second = try number(2, "05")
        fraction = ""
        if rest.first == ".", let digit = rest.dropFirst().first, digit.isASCII, digit.isNumber {
            let digits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(1 + digits.count)
            // Go keeps nanoseconds: digits past the ninth are dropped.
            var kept = String(digits.prefix(9))
            while kept.hasSuffix("0") { kept.removeLast() }
            fraction = kept
        }
        if rest.first == "Z" {
            rest = rest.dropFirst()
            offset = 0
        } else {
            guard let sign = rest.first, sign == "+" || sign == "-" else { throw fail("Z07:00") }
            let zone = rest
            rest = rest.dropFirst()
            guard let hours = try? number(2, "Z07:00"), (try? literal(":", "Z07:00")) != nil, let minutes = try? number(2, "Z07:00"),
                hours < 24, minutes < 60
            else {
                rest = zone
                throw fail("Z07:00")
            }
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        guard rest.isEmpty else { throw .time("parsing time \(Self.quoted(text)): extra text: \(Self.quoted(String(rest)))") }
        guard (1...12).contains(month) else { throw outOfRange("month") }
        guard day >= 1, day <= Self.daysIn(month: month, year: year) else { throw outOfRange("day") }
        guard hour < 24 else { throw outOfRange("hour") }
        guard minute < 60 else { throw outOfRange("minute") }
        guard second < 60 else { throw outOfRange("second") }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01 (`civil_from_days`).
    static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Go's `quote` for time errors: the text in double quotes, quotes and backslashes escaped.
    private static func quoted(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
