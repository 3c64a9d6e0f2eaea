import Foundation
import HeraldTestSupport
import Testing

/// `herald simulate --verbose`: every accepted request is logged as one line (shortened token, the headers that
/// matter, the payload), so a newcomer sees what would have reached the phone; without `--verbose` nothing is.
@Suite(.serialized) struct SimulateVerboseTests {
    static let apnsToken = String(repeating: "ab", count: 32)

    /// Runs `herald simulate apns` (with `--verbose` when `verbose`) and `herald serve` against it, sends one
    /// broadcast to one APNs subscriber, waits until the simulator's periodic summary counts it, and returns the
    /// simulator's standard error.
    func simulatorLogAfterOneAPNsDelivery(verbose: Bool) async throws -> String {
        let server = try await SimulatedServer.start(["apns", "--apns-port", "0"] + (verbose ? ["--verbose"] : []))
        defer { server.simulate.signal(SIGTERM) }
        let commands = SimulateCommandTests()
        let registered = try await commands.post(server.base + "/subscribers", form: "proto=apns&token=\(Self.apnsToken)")
        #expect(registered.status == 201)
        #expect(try await commands.post(server.base + "/event/broadcast", form: "msg=Hello+verbose+world").status == 204)
        // The summary is logged after the request was accepted, so a payload line would be there before it.
        try await eventually(limit: .seconds(60)) { server.simulate.log.contains("apns: 1 accepted of 1") }
        #expect(await server.stop())
        return server.simulate.log
    }

    @Test func verboseLogsTheAcceptedAPNsPayload() async throws {
        let log = try await simulatorLogAfterOneAPNsDelivery(verbose: true)
        let lines = log.split(separator: "\n").filter { $0.contains("Hello verbose world") }
        #expect(lines.count == 1, "\(log)")
        let line = String(lines.first ?? "")
        #expect(line.contains("simulator=apns"), "\(line)")
        #expect(line.contains("token=abababab…"), "\(line)")
        #expect(line.contains("apns-push-type=alert"), "\(line)")
        #expect(line.contains("apns-topic=com.example.app"), "\(line)")
        #expect(line.contains("apns-priority="), "\(line)")
        #expect(line.contains(#""aps":"#), "the payload as sent: \(line)")
        #expect(!log.contains(Self.apnsToken), "the whole device token is never logged")
        #expect(!log.lowercased().contains("bearer"), "credentials are never logged")
    }

    /// Every simulator `simulate` runs goes through the same hook: one line each, token shortened, payload shown.
    @Test func verboseLogsOneLineForEverySimulatedKind() async throws {
        let server = try await SimulatedServer.start(
            ["--verbose", "--apns-port", "0", "--fcm-port", "0", "--web-push-port", "0", "--wns-port", "0", "--mpns-port", "0",
             "--gcm-legacy-port", "0"])
        let (directory, simulate, base) = (server.directory, server.simulate, server.base)
        defer { simulate.signal(SIGTERM) }
        let commands = SimulateCommandTests()
        func register(form: String? = nil, json: String? = nil) async throws -> Int {
            try await commands.post(base + "/subscribers", form: form, json: json).status
        }
        let fcmToken = String(repeating: "f", count: 64)
        let gcmLegacyToken = String(repeating: "e", count: 64)
        let subscription = try String(contentsOfFile: directory + "/sim/webpush-subscription.json", encoding: .utf8)
        let wnsChannel = SimulateCommandTests.formEncoded(
            try String(contentsOfFile: directory + "/sim/wns-channel.txt", encoding: .utf8))
        let mpnsChannel = SimulateCommandTests.formEncoded(
            try String(contentsOfFile: directory + "/sim/mpns-channel.txt", encoding: .utf8))
        #expect(try await register(form: "proto=apns&token=\(Self.apnsToken)") == 201)
        #expect(try await register(form: "proto=gcm&token=\(fcmToken)") == 201)
        #expect(try await register(json: #"{"proto":"webpush","token":\#(subscription)}"#) == 201)
        #expect(try await register(form: "proto=wns-toast&token=\(wnsChannel)") == 201)
        #expect(try await register(form: "proto=mpns-toast&token=\(mpnsChannel)") == 201)
        #expect(try await register(form: "proto=gcm-legacy&token=\(gcmLegacyToken)") == 201)

        #expect(try await commands.post(base + "/event/broadcast", form: "msg=Hello+verbose+world").status == 204)
        try await eventually(limit: .seconds(60)) {
            simulate.log.contains(
                "apns: 1 accepted of 1, fcm: 1 accepted of 1, webpush: 1 accepted of 1, wns: 1 accepted of 1, "
                    + "mpns: 1 accepted of 1, gcm-legacy: 1 delivered in 1 requests")
        }
        #expect(await server.stop())

        let log = simulate.log
        let lines = log.split(separator: "\n").filter { $0.contains("Hello verbose world") }
        for kind in ["apns", "fcm", "webpush", "wns", "mpns", "gcm-legacy"] {
            let ofKind = lines.filter { $0.contains(" simulator=\(kind) ") }
            #expect(ofKind.count == 1, "\(kind): \(log)")
            #expect(ofKind.first?.contains("token=") == true, "\(kind) names its recipient")
        }
        #expect(lines.contains { $0.contains("X-WNS-Type=wns/toast") })
        #expect(lines.contains { $0.contains("X-WindowsPhone-Target=toast") })
        #expect(lines.contains { $0.contains("ttl=") && $0.contains("simulator=webpush") })
        for token in [Self.apnsToken, fcmToken, gcmLegacyToken] {
            #expect(!log.contains(token), "the whole token is never logged, not even inside a payload")
        }
        for secret in ["simulator-secret", "AIzaSy-herald-simulator"] {
            #expect(!log.contains(secret), "credentials are never logged")
        }
    }

    @Test func withoutVerboseNoPayloadIsLogged() async throws {
        let log = try await simulatorLogAfterOneAPNsDelivery(verbose: false)
        #expect(!log.contains("Hello verbose world"), "\(log)")
        #expect(!log.contains("token=abababab"), "\(log)")
    }
}
