import HeraldCore

extension MatrixAppTable {
    /// The apps of `compat.matrix` (already checked for its keys' shapes and provider names);
    /// `kind` names each provider's kind.
    ///
    /// - Throws: ``ConfigurationError`` for a provider of a kind the gateway cannot send through
    ///   (it sends through APNs, FCM, Huawei Push Kit and Web Push) or an option of the wrong form.
    init(section: ConfigSection, kind: (String) -> String?) throws(ConfigurationError) {
        var apps: [MatrixApp] = []
        guard let entries = try section.section("apps") else {
            self.init([])
            return
        }
        for pattern in entries.values.keys {
            guard let entry = try entries.section(pattern) else { continue }
            let provider = try entry.requiredString("provider")
            let delivery: MatrixApp.Delivery
            switch kind(provider) {
            case "apns":
                let pushType = try entry.string("push_type")
                if let pushType, !["alert", "background", "voip"].contains(pushType) {
                    throw ConfigurationError(key: entry.keyPath("push_type"), "expected alert, background or voip, got \"\(pushType)\"")
                }
                delivery = .apns(
                    convertDeviceTokenToHex: try entry.bool("convert_device_token_to_hex") ?? true,
                    sendBadgeCounts: try entry.bool("send_badge_counts") ?? true, pushType: pushType)
            case "fcm":
                var options: [(key: String, value: BodyValue)] = []
                switch entry.values["fcm_options"] {
                case nil, .null?: break
                case .map(let members)?: options = members.map { ($0.key, Self.bodyValue($0.value)) }
                default: throw ConfigurationError(key: entry.keyPath("fcm_options"), "expected a mapping")
                }
                delivery = .fcm(options: options)
            case "hms":
                delivery = .hms
            case "webpush":
                delivery = .webPush(
                    ttl: try entry.int("ttl", in: 0...2_419_200) ?? MatrixWebPushPayload.defaultTTL,
                    eventsOnly: try entry.bool("events_only") ?? false, onlyLastPerRoom: try entry.bool("only_last_per_room") ?? false)
            default:
                throw ConfigurationError(
                    key: entry.keyPath("provider"), "provider \"\(provider)\" is of kind \(kind(provider) ?? "?"); the Matrix gateway sends through apns, fcm, hms or webpush")
            }
            apps.append(MatrixApp(pattern: pattern, provider: provider, delivery: delivery))
        }
        self.init(apps)
    }

    /// A configuration value as the JSON it stands for: YAML's `true`/`false` and numbers as such,
    /// other scalars as strings.
    static func bodyValue(_ value: ConfigValue) -> BodyValue {
        switch value {
        case .null: return .null
        case .list(let items): return .array(items.map(bodyValue))
        case .map(let members): return .object(members.map { ($0.key, bodyValue($0.value)) })
        case .scalar(let text):
            if text == "true" || text == "false" { return .bool(text == "true") }
            if Int64(text) != nil || (Double(text) != nil && text.contains(".")) { return .number(text) }
            return .string(text)
        }
    }
}
