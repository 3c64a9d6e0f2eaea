import Foundation
import HeraldConfiguration
import HeraldCore
import HeraldTestFixtures

/// Loads configurations from YAML text through a real file, as `herald serve --config` does.
enum Fixture {
    /// A fresh empty directory, in the test process's temporary folder removed at exit.
    static func makeDirectory() -> String {
        TemporaryDirectory.make()
    }

    /// Writes `text` to a new file and returns its path.
    static func write(_ text: String, name: String = "herald.yaml") -> String {
        let path = makeDirectory() + "/" + name
        let created = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        precondition(created, "cannot write \(path)")
        return path
    }

    /// Loads `yaml` (no file at all when `nil`) with the test kinds.
    static func load(
        _ yaml: String?,
        environment: [String: String] = [:],
        overrides: ConfigurationOverrides = ConfigurationOverrides()
    ) throws(ConfigurationError) -> LoadedConfiguration {
        let file = yaml.map { write($0) }
        defer { if let file { try? FileManager.default.removeItem(atPath: file) } }
        return try ConfigurationLoader(kinds: TestKind.registry).load(file: file, environment: environment, overrides: overrides)
    }

    /// The error loading `yaml` throws, or `nil` when it loads.
    static func failure(
        _ yaml: String?,
        environment: [String: String] = [:],
        overrides: ConfigurationOverrides = ConfigurationOverrides()
    ) -> ConfigurationError? {
        do {
            _ = try load(yaml, environment: environment, overrides: overrides)
            return nil
        } catch {
            return error
        }
    }

    /// The error loading the file at `path` throws, or `nil` when it loads.
    static func failureLoading(file path: String) -> ConfigurationError? {
        do {
            _ = try ConfigurationLoader(kinds: TestKind.registry).load(file: path, environment: [:], overrides: ConfigurationOverrides())
            return nil
        } catch {
            return error
        }
    }

    /// The example of `interface.md`, verbatim but for the commented-out lines.
    static let interfaceExample = """
        server:
          http:
            host: 0.0.0.0          # default 0.0.0.0
            port: 8080             # default 8080
          udp:                     # rs/pushd compressed-datagram events; absent = off
            host: 0.0.0.0
            port: 8080
          database: sqlite:herald.db         # or postgres://user:password@host:5432/dbname
          access_log: false
          auth:                              # HTTP Basic users and the realms they may use
            admin:
              password: secret
              realms: [register, publish, listen, admin]
          acl:                               # source-address allow-lists per realm (IPv4/IPv6, CIDR)
            publish: [127.0.0.1, "::1", 10.0.0.0/8]

        log:
          level: info

        event_source:
          enabled: true                      # GET /subscribe (Server-Sent Events)

        outbound:
          ca_file: extra-roots.pem           # extra trust roots for every outbound TLS connection

        delivery:
          max_failures: 5                    # consecutive permanent failures before a subscriber is unregistered

        providers:                           # each key is a `proto` name clients register with
          apns:
            kind: apns
            environment: production          # production | sandbox (api.push.apple.com / api.sandbox.push.apple.com)
            endpoint: https://127.0.0.1:2197 # optional: replaces the Apple host (proxy, simulator)
            ca_file: sim-ca.pem              # optional: extra trust root for this provider
            topic: com.example.app           # apns-topic (bundle id)
            team_id: ABCDE12345              # token (JWT) authentication ...
            key_id: KEY1234567
            key_file: AuthKey_KEY1234567.p8
            # cert_file: apns-cert.pem       # ... or certificate authentication
            # cert_key_file: apns-key.pem
          gcm:
            kind: fcm                        # FCM HTTP v1
            service_account_file: service-account.json   # its token_uri is the OAuth endpoint used
            endpoint: https://127.0.0.1:9444 # optional: replaces https://fcm.googleapis.com
          webpush:
            kind: webpush
            vapid_subject: mailto:ops@example.com
            vapid_private_key_file: vapid.pem
          wns-toast:
            kind: wns
            type: toast                      # toast | tile | badge | raw
            client_id: ms-app://...
            client_secret: ...
            token_endpoint: https://127.0.0.1:9445/accesstoken.srf   # optional override
          mpns-toast:
            kind: mpns
            type: toast                      # toast | tile | raw
          http:
            kind: http                       # webhook: POST JSON to the subscriber's URL

        compat:                              # stand-ins for the other gateways; each absent = off
          apns_ms:      {provider: apns, host: 0.0.0.0, port: 9090}
          choominator:  {provider: apns, host: 127.0.0.1, registration_port: 7734, notification_port: 7874}
          push2mob:     {apns_provider: apns, gcm_provider: gcm, apns_bind: "tcp://127.0.0.1:12195",
                         gcm_bind: "tcp://127.0.0.1:12196", device_token_format: hex}
          suj_pusher:   {redis: "redis://127.0.0.1:6379/0", namespace: pusher,
                         apns_endpoints: {production: ..., sandbox: ...},   # optional overrides
                         api_keys: {"<gcm api key>": gcm}}                  # GCM api_key -> FCM provider
          gorush:       {ios_provider: apns, android_provider: gcm}    # POST /api/push on the main port
        """
}
