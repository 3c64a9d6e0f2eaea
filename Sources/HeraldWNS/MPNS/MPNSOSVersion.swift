import Foundation

/// The Windows Phone version thresholds of pushd-api.md §10.6, compared as JavaScript compared them.
public enum MPNSOSVersion {
    /// `wp:Param` needs Windows Phone 7.5.
    public static let toastParameter = 7.5
    /// Flip tiles need Windows Phone 8.0.
    public static let flipTile = 8.0

    /// The subscriber's `version` as a number: JavaScript's `Number(text)`, with a non-numeric
    /// version (or none) counting as 0.
    public static func number(_ version: String?) -> Double {
        guard let text = version?.trimmingCharacters(in: .whitespacesAndNewlines) else { return 0 }
        if text.isEmpty { return 0 }
        guard let value = Double(text), value.isFinite else { return 0 }
        return value
    }
}
