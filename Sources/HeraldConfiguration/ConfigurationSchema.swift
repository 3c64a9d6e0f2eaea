import HeraldCore

/// The known configuration keys (`interface.md`, `compat.md` §§2.1, 3.1, 4.1, 5.1, 6).
enum ConfigurationSchema {
    /// `server.udp`.
    static let endpoint: [String: KeyShape] = ["host": .scalar, "port": .scalar]

    /// `server.http.tls`, `compat.apns_ms.tls`: TLS on one of Herald's own listeners.
    static let tls: [String: KeyShape] = ["cert_file": .scalar, "key_file": .scalar, "key_password_file": .scalar]

    /// `server.http`: an endpoint that may serve TLS.
    static let httpEndpoint: [String: KeyShape] = endpoint.merging(["tls": .section(tls)]) { $1 }

    /// One user under `server.auth`.
    static let user: [String: KeyShape] = ["password": .scalar, "password_file": .scalar, "realms": .list]

    /// `server.acl`: one address list per realm.
    static let acl: [String: KeyShape] = Dictionary(uniqueKeysWithValues: Realm.allCases.map { ($0.rawValue, KeyShape.list) })

    /// One realm under `server.rate_limit`.
    static let rateLimit: [String: KeyShape] = ["rate": .scalar, "burst": .scalar]

    /// `server.rate_limit`: one token bucket per client, per realm.
    static let rateLimits: [String: KeyShape] = Dictionary(uniqueKeysWithValues: Realm.allCases.map { ($0.rawValue, KeyShape.section(rateLimit)) })

    /// `server`.
    static let server: [String: KeyShape] = [
        "http": .section(httpEndpoint),
        "udp": .section(endpoint),
        "database": .scalar,
        "access_log": .scalar,
        "header_timeout": .scalar,
        "body_timeout": .scalar,
        "idle_timeout": .scalar,
        "auth": .entries(.section(user)),
        "acl": .section(acl),
        "rate_limit": .section(rateLimits),
    ]

    /// `log`.
    static let log: [String: KeyShape] = ["level": .scalar]

    /// `event_source`.
    static let eventSource: [String: KeyShape] = ["enabled": .scalar, "keepalive_interval": .scalar, "max_buffered": .scalar, "max_listeners": .scalar, "replay_window": .scalar]

    /// `outbound`.
    static let outbound: [String: KeyShape] = ["ca_file": .scalar, "deny": .list, "allow": .list]

    /// `delivery`.
    static let delivery: [String: KeyShape] = [
        "max_failures": .scalar,
        "max_attempts": .scalar,
        "retry_delay": .scalar,
        "max_retry_delay": .scalar,
        "batch_size": .scalar,
        "in_flight": .scalar,
        "concurrent_jobs": .scalar,
        "lease_duration": .scalar,
        "max_backlog": .scalar,
        "max_retry_age": .scalar,
        "shutdown_grace_period": .scalar,
        "dead_letter_retention": .scalar,
        "feedback_retention": .scalar,
        "receipt_retention": .scalar,
        "idempotency_window": .scalar,
        "max_schedule_ahead": .scalar,
        "commit_interval": .scalar,
        "breaker_threshold": .scalar,
        "breaker_open_duration": .scalar,
        "breaker_max_open_duration": .scalar,
    ]

    /// `compat.apns_ms` (`compat.md` §4.1).
    static let apnsMS: [String: KeyShape] = ["provider": .scalar, "host": .scalar, "port": .scalar, "tls": .section(tls)]

    /// `compat.choominator` (`compat.md` §5.1).
    static let choominator: [String: KeyShape] = [
        "provider": .scalar, "host": .scalar, "registration_port": .scalar, "notification_port": .scalar,
    ]

    /// `compat.push2mob` (`compat.md` §3.1).
    static let push2mob: [String: KeyShape] = [
        "apns_provider": .scalar, "gcm_provider": .scalar, "apns_bind": .scalar, "gcm_bind": .scalar,
        "device_token_format": .scalar,
    ]

    /// `compat.suj_pusher.apns_endpoints`.
    static let sujPusherAPNsEndpoints: [String: KeyShape] = ["production": .scalar, "sandbox": .scalar]

    /// `compat.suj_pusher` (`compat.md` §2.1).
    static let sujPusher: [String: KeyShape] = [
        "redis": .scalar,
        "namespace": .scalar,
        "apns_endpoints": .section(sujPusherAPNsEndpoints),
        "api_keys": .entries(.scalar),
        "legacy_gcm_endpoint": .scalar,
        "wns_token_endpoint": .scalar,
        "wpns_endpoint": .scalar,
    ]

    /// `compat.gorush` (`compat.md` §6).
    static let gorush: [String: KeyShape] = ["ios_provider": .scalar, "android_provider": .scalar, "huawei_provider": .scalar]

    /// `compat.matrix` (`compat.md` §8): apps by `app_id` or glob, each with its provider and
    /// Sygnal's per-app options.
    static let matrix: [String: KeyShape] = [
        "apps": .entries(.section([
            "provider": .scalar, "convert_device_token_to_hex": .scalar, "send_badge_counts": .scalar, "push_type": .scalar,
            "fcm_options": .anything, "ttl": .scalar, "events_only": .scalar, "only_last_per_room": .scalar,
        ])),
    ]

    /// `compat`.
    static let compat: [String: KeyShape] = [
        "matrix": .section(matrix),
        "apns_ms": .section(apnsMS),
        "choominator": .section(choominator),
        "push2mob": .section(push2mob),
        "suj_pusher": .section(sujPusher),
        "gorush": .section(gorush),
    ]

    /// The top level.
    static let root: [String: KeyShape] = [
        "server": .section(server),
        "log": .section(log),
        "event_source": .section(eventSource),
        "outbound": .section(outbound),
        "delivery": .section(delivery),
        "providers": .providers,
        "compat": .section(compat),
        "unifiedpush": .section(unifiedPush),
    ]

    /// `unifiedpush`: the UnifiedPush push server's own listener and its limits.
    static let unifiedPush: [String: KeyShape] = [
        "host": .scalar, "port": .scalar, "tls": .section(tls), "base_url": .scalar, "max_ttl": .scalar, "topic_idle": .scalar,
        "keepalive": .scalar, "rate": .section(rateLimit),
    ]

    /// Keys every provider accepts besides its kind's own options.
    static let providerCommonKeys: Set<String> = ["kind", "ca_file", "max_in_flight", "max_in_flight_per_host"]
}
