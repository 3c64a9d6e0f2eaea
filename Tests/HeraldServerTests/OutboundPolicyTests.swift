import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldSimulators
import HeraldTestSupport
import HeraldWebPush
import HeraldWebhook
import Logging
import NIOCore
import NIOPosix
import Testing

/// `outbound.deny` and `outbound.allow`: subscriber-supplied destinations cannot lead to forbidden networks,
/// whether named by a literal address (refused at registration) or by a host name (refused when connecting).
@Suite struct OutboundPolicyTests {
    @Test func literalAddressesInDefaultDeniedRangesAreRefusedAtRegistration() async throws {
        try await withHerald { herald in
            for (url, host) in [
                ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
                ("http://user:secret@169.254.169.254:8080/x", "169.254.169.254"),
                ("http://[fe80::1]/hook", "fe80::1"),
                ("https://[::ffff:169.254.169.254]/hook", "::ffff:169.254.169.254"),
                ("http://[fd00:ec2::254]/latest", "fd00:ec2::254"),
                ("http://0.0.0.0:9/x", "0.0.0.0"),
            ] {
                let response = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded(url))")
                #expect(response.status == 400, "\(url)")
                #expect(response.body == #"{"error":"Destination not allowed: \#(host)"}"#, "\(url)")
            }
            // Raw sends are refused the same way.
            let raw = try await herald.request(
                .POST, "/send", json: #"{"proto":"http","tokens":["http://169.254.169.254/x"],"payload":{"a":1}}"#)
            #expect(raw.status == 400)
            #expect(raw.body == #"{"error":"Destination not allowed: 169.254.169.254"}"#)
            #expect(try await herald.application.store.counts().subscribers == 0)
            #expect(try await herald.application.store.counts().retries == 0)
            // A host name is not resolved at registration, and other addresses are fine.
            #expect(try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded("http://metadata.example/x"))").status == 201)
            #expect(try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded("http://10.1.2.3/x"))").status == 201)
        }
    }

    @Test func anAllowListRefusesEverythingOutsideIt() async throws {
        let yaml = """
            outbound:
              allow: [10.0.0.0/8, "2001:db8::/32"]
            """
        try await withHerald(yaml: yaml) { herald in
            let outside = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded("http://127.0.0.1:9/x"))")
            #expect(outside.status == 400)
            #expect(outside.body == #"{"error":"Destination not allowed: 127.0.0.1"}"#)
            let outsideV6 = try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded("http://[2001:db9::1]/x"))")
            #expect(outsideV6.body == #"{"error":"Destination not allowed: 2001:db9::1"}"#)
            // The default deny list still applies beside the allow list.
            #expect(try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded("http://169.254.1.1/x"))").status == 400)
            #expect(try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded("http://10.9.8.7/x"))").status == 201)
            #expect(try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded("http://[2001:db8::5]/x"))").status == 201)
            #expect(try await herald.application.store.counts().subscribers == 2)
        }
    }

    @Test func aWebhookWhoseNameResolvesToADeniedAddressIsNeverConnectedTo() async throws {
        let yaml = """
            outbound:
              deny: [127.0.0.0/8, "::1/128"]
            delivery:
              max_failures: 1
            """
        try await withReceiver { receiver in
            try await withHerald(yaml: yaml) { herald in
                // The literal address is refused at once; the name is accepted and caught when connecting.
                #expect(try await herald.request(.POST, "/subscribers", form: "proto=http&token=\(Fixtures.formEncoded(receiver.url("/hook")))").status == 400)
                let url = "http://localhost:\(receiver.port)/hook"
                let id = try await Fixtures.register(herald, url: url)
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/news").status == 201)
                #expect(try await herald.request(.POST, "/event/news", form: "msg=hello").status == 204)

                // A permanent failure: with max_failures 1 the subscriber is unregistered, and the letter is kept.
                try await eventually { try await herald.request(.GET, "/subscriber/\(id)").status == 404 }
                let letters = try #require(try Fixtures.json(try await herald.request(.GET, "/dead-letters?provider=http").body) as? [String: Any])
                let entries = try #require(letters["entries"] as? [[String: Any]])
                #expect(entries.count == 1)
                #expect(entries.first?["reason"] as? String == "DestinationNotAllowed")
                let feedback = try #require(try Fixtures.json(try await herald.request(.GET, "/feedback").body) as? [String: Any])
                let records = try #require(feedback["entries"] as? [[String: Any]])
                #expect(records.contains { $0["subscriber"] as? String == id && $0["reason"] as? String == "DestinationNotAllowed" })
                #expect(try await herald.application.store.counts().retries == 0)
            }
            #expect(receiver.count == 0)
        }
    }

    @Test func aProvidersOwnDenyListReplacesTheGlobalOne() async throws {
        let yaml = """
            outbound:
              deny: [127.0.0.0/8, "::1/128"]
            providers:
              http:
                kind: http
                deny: []
            """
        try await withReceiver { receiver in
            try await withHerald(yaml: yaml) { herald in
                let id = try await Fixtures.register(herald, url: "http://localhost:\(receiver.port)/hook")
                #expect(try await herald.request(.POST, "/event/unicast:\(id)", form: "msg=through").status == 204)
                let received = try await receiver.waitFor(count: 1)
                #expect(received.first?.path == "/hook")
                #expect(received.first?.body.contains("through") == true)
            }
        }
    }

    @Test func aWebPushEndpointWhoseNameResolvesToADeniedAddressFailsForGood() async throws {
        let directory = TestHerald.makeTemporaryDirectory()
        let authority = try SimulatorCertificateAuthority(directory: directory)
        var configuration = WebPushSimulator.Configuration(certificateAuthority: authority)
        configuration.host = "localhost"
        configuration.logger = Logger(label: "test.simulator.webpush", factory: { _ in SwiftLogNoOpLogHandler() })
        let simulator = WebPushSimulator(configuration: configuration)
        _ = try await simulator.start()
        let key = directory + "/vapid.pem"
        try VAPIDKey().write(toFile: key)
        let yaml = """
            outbound:
              deny: [127.0.0.0/8, "::1/128", 169.254.0.0/16]
            providers:
              webpush:
                kind: webpush
                vapid_subject: mailto:ops@example.com
                vapid_private_key_file: \(key)
                ca_file: \(authority.caCertificateFile!)
            """
        do {
            try await withHerald(yaml: yaml) { herald in
                let subscription = try simulator.makeSubscription()
                #expect(subscription.endpoint.hasPrefix("https://localhost:"))
                let registered = try await herald.request(.POST, "/subscribers", json: #"{"proto":"webpush","token":\#(subscription.json)}"#)
                #expect(registered.status == 201, "\(registered.body)")
                let literal = try await herald.request(
                    .POST, "/subscribers",
                    json: #"{"proto":"webpush","token":{"endpoint":"https://169.254.169.254/push/1","keys":{"p256dh":"\#(subscription.p256dh)","auth":"\#(subscription.auth)"}}}"#)
                #expect(literal.status == 400)
                #expect(literal.body == #"{"error":"Destination not allowed: 169.254.169.254"}"#)
                #expect(try await herald.request(.POST, "/event/broadcast", form: "msg=hi").status == 204)
                try await eventually { try await herald.application.store.counts().deadLetters == 1 }
                let letters = try await herald.request(.GET, "/dead-letters?provider=webpush").body
                #expect(letters.contains(#""reason":"DestinationNotAllowed""#))
                #expect(simulator.acceptedCount == 0)
            }
            await simulator.stop()
        } catch {
            await simulator.stop()
            throw error
        }
    }

    @Test func badBlocksAreAConfigurationError() async throws {
        for (yaml, key) in [
            ("outbound:\n  deny: [not-an-address]\n", "outbound.deny"),
            ("outbound:\n  allow: [\"10.0.0.0/33\"]\n", "outbound.allow"),
            ("providers:\n  http:\n    kind: http\n    allow: [\"fe80::/200\"]\n", "providers.http.allow"),
        ] {
            await #expect {
                try await withHerald(yaml: yaml) { _ in }
            } throws: { error in
                "\(error)".contains(key)
            }
        }
    }

    /// The guard itself, as a client routed through it sees it: a refusal it can recognise, a tunnel otherwise,
    /// and nothing for a client without its credentials.
    @Test func theEgressGuardTunnelsPermittedDestinationsOnly() async throws {
        let logger = Logger(label: "test.egress", factory: { _ in SwiftLogNoOpLogHandler() })
        try await withReceiver { receiver in
            let denying = try await EgressGuard.start(
                policy: DestinationPolicy(deny: [AddressMatcher("127.0.0.0/8")!], allow: []), connectTimeout: .seconds(5), logger: logger)
            let permitting = try await EgressGuard.start(policy: .standard, connectTimeout: .seconds(5), logger: logger)
            let tls = try OutboundTLS.clientConfiguration(extraRootFiles: [])
            let denied = OutboundHTTPClient.make(.init(), tls: tls, egress: denying)
            let allowed = OutboundHTTPClient.make(.init(), tls: tls, egress: permitting)
            var request = HTTPClientRequest(url: receiver.url("/tunnel"))
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: #"{"a":1}"#))
            await #expect { _ = try await denied.execute(request, timeout: .seconds(10)) } throws: { EgressGuard.isRefusal($0) }
            let response = try await allowed.execute(request, timeout: .seconds(10))
            #expect(response.status == .ok)
            _ = try await response.body.collect(upTo: 1 << 16)
            #expect(receiver.requests.map(\.path) == ["/tunnel"])

            // Without the guard's credentials, a local process gets no tunnel.
            var direct = HTTPClient.Configuration()
            direct.proxy = .server(host: "127.0.0.1", port: permitting.proxy.port)
            direct.connectionPool.retryConnectionEstablishment = false
            let stranger = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: direct)
            await #expect { _ = try await stranger.execute(request, timeout: .seconds(10)) } throws: {
                ($0 as? HTTPClientError) == .proxyAuthenticationRequired
            }
            #expect(receiver.requests.count == 1)
            try await stranger.shutdown()
            try await denied.shutdown()
            try await allowed.shutdown()
            await denying.close()
            await permitting.close()
        }
    }
}
