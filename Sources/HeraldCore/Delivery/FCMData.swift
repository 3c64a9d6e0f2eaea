/// The `data` object of an FCM (or legacy GCM) message: the keys the service reserves, and the
/// all-strings form FCM HTTP v1 requires (compat.md §1.3).
public enum FCMData {
    /// Whether FCM reserves `key` in `data`: `from`, `message_type`, and keys starting with
    /// `google` or `gcm`. Such keys are never sent.
    public static func isReserved(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    /// `data` as FCM HTTP v1 takes it: reserved keys left out, strings as they are, any other value
    /// as its compact JSON text (`12` → `"12"`), which is what legacy GCM delivered to apps.
    public static func strings(_ data: [(key: String, value: BodyValue)]) -> [(key: String, value: BodyValue)] {
        data.compactMap { key, value in
            guard !isReserved(key) else { return nil }
            if case .string = value { return (key, value) }
            return (key, .string(value.jsonText))
        }
    }
}
