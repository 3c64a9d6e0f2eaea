import HeraldCore
import OrderedCollections
import Yams

extension HeraldConfiguration {
    /// The configuration as Herald runs with it, as YAML: every key of the sections Herald reads
    /// itself with its value or default, the providers and compat front-ends as given, and every
    /// secret shown as `***` (`herald config check`).
    ///
    /// Provider kinds keep their own defaults, so a provider shows only what was configured. With
    /// the secrets put back, the text loads into the same configuration.
    public func effectiveYAML() -> String {
        // Serializing a tree of plain strings cannot fail; an empty answer would only hide a Yams bug.
        (try? Yams.serialize(node: effectiveTree.yamlNode, indent: 2, width: -1, sortKeys: false)) ?? ""
    }

    /// The configuration as a value tree, secrets masked: what ``effectiveYAML()`` prints.
    var effectiveTree: ConfigValue {
        var root: OrderedDictionary<String, ConfigValue> = [:]
        root["server"] = serverTree
        root["log"] = .map(["level": .scalar(log.level.rawValue)])
        root["event_source"] = .map([
            "enabled": Self.scalar(eventSource.enabled),
            "keepalive_interval": Self.seconds(eventSource.keepaliveInterval),
            "max_buffered": Self.scalar(eventSource.maxBuffered),
            "max_listeners": Self.scalar(eventSource.maxListeners),
            "replay_window": Self.seconds(eventSource.replayWindow),
        ])
        var outbound: OrderedDictionary<String, ConfigValue> = [:]
        if let caFile = self.outbound.caFile { outbound["ca_file"] = .scalar(caFile) }
        outbound["deny"] = .list(self.outbound.destinations.deny.map { .scalar($0.description) })
        outbound["allow"] = .list(self.outbound.destinations.allow.map { .scalar($0.description) })
        root["outbound"] = .map(outbound)
        root["delivery"] = deliveryTree
        var providers: OrderedDictionary<String, ConfigValue> = [:]
        for (name, provider) in self.providers {
            providers[name] = SecretMask.masked(.map(provider.options.values))
        }
        root["providers"] = .map(providers)
        var compat: OrderedDictionary<String, ConfigValue> = [:]
        let sections: [(String, ConfigSection?)] = [
            ("apns_ms", self.compat.apnsMS), ("choominator", self.compat.choominator), ("push2mob", self.compat.push2mob),
            ("suj_pusher", self.compat.sujPusher), ("gorush", self.compat.gorush),
        ]
        for case (let name, let section?) in sections { compat[name] = SecretMask.masked(.map(section.values)) }
        if !compat.isEmpty { root["compat"] = .map(compat) }
        if let unifiedPush { root["unifiedpush"] = SecretMask.masked(.map(unifiedPush.values)) }
        return .map(root)
    }

    private var serverTree: ConfigValue {
        var server: OrderedDictionary<String, ConfigValue> = [:]
        var http: OrderedDictionary<String, ConfigValue> = ["host": .scalar(self.server.http.host), "port": Self.scalar(self.server.http.port)]
        if let tls = self.server.http.tls {
            var section: OrderedDictionary<String, ConfigValue> = ["cert_file": .scalar(tls.certificateFile), "key_file": .scalar(tls.keyFile)]
            if let passwordFile = tls.keyPasswordFile { section["key_password_file"] = .scalar(passwordFile) }
            http["tls"] = .map(section)
        }
        server["http"] = .map(http)
        if let udp = self.server.udp {
            server["udp"] = .map(["host": .scalar(udp.host), "port": Self.scalar(udp.port)])
        }
        server["database"] = .scalar(SecretMask.maskedURL(self.server.database))
        server["access_log"] = Self.scalar(self.server.accessLog)
        server["header_timeout"] = Self.seconds(self.server.headerTimeout)
        server["body_timeout"] = Self.seconds(self.server.bodyTimeout)
        server["idle_timeout"] = Self.seconds(self.server.idleTimeout)
        var auth: OrderedDictionary<String, ConfigValue> = [:]
        for (name, user) in self.server.auth.sorted(by: { $0.key < $1.key }) {
            let realms = Realm.allCases.filter { user.realms.contains($0) }.map { ConfigValue.scalar($0.rawValue) }
            auth[name] = .map(["password": .scalar(SecretMask.mask), "realms": .list(realms)])
        }
        server["auth"] = .map(auth)
        var acl: OrderedDictionary<String, ConfigValue> = [:]
        for realm in Realm.allCases {
            if let entries = self.server.acl[realm] { acl[realm.rawValue] = .list(entries.map { .scalar($0) }) }
        }
        server["acl"] = .map(acl)
        var limits: OrderedDictionary<String, ConfigValue> = [:]
        for realm in Realm.allCases {
            if let limit = self.server.rateLimit[realm] {
                limits[realm.rawValue] = .map(["rate": .scalar(Self.number(limit.rate)), "burst": Self.scalar(limit.burst)])
            }
        }
        server["rate_limit"] = .map(limits)
        return .map(server)
    }

    private var deliveryTree: ConfigValue {
        let delivery = self.delivery
        // The ages read 0 as "no bound", which is how they are kept: `nil`.
        func age(_ value: Duration?) -> ConfigValue { value.map(Self.seconds) ?? .scalar("0") }
        return .map([
            "max_failures": Self.scalar(delivery.maxFailures),
            "max_attempts": Self.scalar(delivery.maxAttempts),
            "retry_delay": Self.seconds(delivery.retryDelay),
            "max_retry_delay": Self.seconds(delivery.maxRetryDelay),
            "batch_size": Self.scalar(delivery.batchSize),
            "in_flight": Self.scalar(delivery.inFlight),
            "commit_interval": Self.seconds(delivery.commitInterval),
            "concurrent_jobs": Self.scalar(delivery.concurrentJobs),
            "lease_duration": Self.seconds(delivery.leaseDuration),
            "max_backlog": Self.scalar(delivery.maxBacklog),
            "max_retry_age": age(delivery.maxRetryAge),
            "shutdown_grace_period": Self.seconds(delivery.shutdownGracePeriod),
            "dead_letter_retention": age(delivery.deadLetterRetention),
            "feedback_retention": age(delivery.feedbackRetention),
            "receipt_retention": age(delivery.receiptRetention),
            "idempotency_window": Self.seconds(delivery.idempotencyWindow),
            "max_schedule_ahead": Self.seconds(delivery.maxScheduleAhead),
            "breaker_threshold": Self.scalar(delivery.breakerThreshold),
            "breaker_open_duration": Self.seconds(delivery.breakerOpenDuration),
            "breaker_max_open_duration": Self.seconds(delivery.breakerMaxOpenDuration),
        ])
    }

    private static func scalar(_ value: Int) -> ConfigValue { .scalar(String(value)) }

    private static func scalar(_ value: Bool) -> ConfigValue { .scalar(value ? "true" : "false") }

    /// Whole seconds without a decimal point, others as the shortest decimal that reads back the same.
    private static func seconds(_ duration: Duration) -> ConfigValue {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return .scalar(String(seconds)) }
        return .scalar(number(Double(seconds) + Double(attoseconds) / 1e18))
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
