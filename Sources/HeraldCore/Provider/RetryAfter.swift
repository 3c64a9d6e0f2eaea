import Foundation

/// Reads an HTTP `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
public enum RetryAfter {
    /// The delay the header asks for, relative to `now`; `nil` when absent or unreadable.
    public static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingWhitespace(), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 {
            return .seconds(seconds)
        }
        guard let date = httpDateFormatter.date(from: value) else { return nil }
        let delay = date.timeIntervalSince(now)
        return delay > 0 ? .milliseconds(Int64(delay * 1000)) : .zero
    }

    // DateFormatter is documented thread-safe for formatting and parsing once configured.
    private static let httpDateFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()
}
