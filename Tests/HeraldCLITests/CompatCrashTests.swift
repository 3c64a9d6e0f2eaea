import AsyncHTTPClient
import Foundation
import HeraldRedis
import HeraldSimulators
import HeraldTestSupport
import HeraldZeroMQ
import NIOCore
import Testing

/// Issues 16 and 17: a message accepted by a compat stand-in (gorush, apns-ms, Choominator, push2mob, suj-pusher) survives
/// `kill -9` of Herald before it is delivered.
///
/// Each test runs the real `herald` binary against an APNs simulator in this process that never
/// answers the first process, so whatever the stand-in accepted is at best in flight when the
/// process dies. The simulator is then replaced by a fresh one with the same credentials at the
/// same address, Herald is started again on the same directory, and only what that fresh
/// simulator accepted counts as delivered.
@Suite(.serialized) struct CompatCrashTests {
    /// More hangs than the first process can send, so none of its requests is ever answered.
    static let hangs = 1_000

    /// The parts of a crash run a test looks at.
    struct Run {
        /// The simulator the killed process sent to (every request held unanswered).
        let first: APNsTestBed
        /// What the simulator serving the restarted process accepted, once every expected token
        /// was among it.
        let accepted: [APNsSimulator.Accepted]
    }

    /// Starts `herald` with the `apns` provider of a hanging simulator, `compat` and a short lease,
    /// runs `accept` (the stand-in's intake, with the process's main port), waits until the first
    /// APNs request arrived, kills the process, and starts it again against a fresh simulator;
    /// returns once that simulator accepted a notification for every token in `expected`.
    ///
    /// `certificateAuthentication` and `configure` shape the simulator (suj-pusher's messages carry
    /// their own certificate, issued by an authority the test chose).
    func crashAndRestart(
        compat: String, expected: Set<String>, certificateAuthentication: Bool = false,
        configure: (inout APNsSimulator.Configuration) -> Void = { _ in }, accept: (Int) async throws -> Void
    ) async throws -> Run {
        let bed = try await APNsTestBed.start(certificateAuthentication: certificateAuthentication, configure: configure)
        // The first process's requests are held forever: it dies with them unanswered.
        bed.simulator.injectNext(Array(repeating: .hang, count: Self.hangs))
        let directory = TestHerald.makeTemporaryDirectory()
        let port = try HeraldProcess.freePort()
        let config = directory + "/herald.yml"
        // A short lease: the restarted process takes over the killed one's claims soon.
        try """
            delivery:
              lease_duration: 2
            providers:
            \(bed.providerYAML)
            \(compat)
            """.write(toFile: config, atomically: true, encoding: .utf8)

        var herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
        var back: APNsSimulator?
        do {
            try await accept(port)
            try await eventually(limit: .seconds(30)) { bed.simulator.requestCount > 0 }
            herald.signal(SIGKILL)
            _ = await herald.waitForExit()
            #expect(bed.simulator.acceptedCount == 0, "the killed process had nothing answered, so every delivery must come from the restart")
            await bed.simulator.stop()

            // The service comes back: same credentials, same port, and no held requests.
            let fresh = APNsSimulator(configuration: bed.configuration)
            _ = try await fresh.start()
            back = fresh
            herald = try await HeraldProcess.start(["--config", config], port: port, directory: directory)
            try await eventually(limit: .seconds(40)) { expected.isSubset(of: Set(fresh.accepted().map { $0.token.lowercased() })) }
            let accepted = fresh.accepted()
            herald.signal(SIGTERM)
            #expect(await herald.waitForExit() == 0, "\(herald.log)")
            await fresh.stop()
            return Run(first: bed, accepted: accepted)
        } catch {
            // Leave no child running and no simulator listening behind a failed test.
            herald.signal(SIGKILL)
            _ = await herald.waitForExit()
            await bed.simulator.stop()
            await back?.stop()
            throw error
        }
    }

    func post(_ url: String, json: String) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        // apns-ms holds its answer up to 5 s while APNs is silent.
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    /// Sends `text` as one UDP datagram to 127.0.0.1:`port` (the stand-in never answers).
    func sendDatagram(_ text: String, to port: Int) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw ProcessExited(log: "cannot open a UDP socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bytes = Array(text.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard sent == bytes.count else { throw ProcessExited(log: "sendto sent \(sent) of \(bytes.count) bytes") }
    }

    /// gorush's `POST /api/push` answered 200: every token is still delivered after `kill -9`.
    @Test func gorushPushSurvivesKill() async throws {
        let tokens = (0..<10).map { APNsTestBed.token($0) }
        let quoted = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        let run = try await crashAndRestart(compat: "compat:\n  gorush: {ios_provider: apns}\n", expected: Set(tokens)) { port in
            let answer = try await post(
                "http://127.0.0.1:\(port)/api/push",
                json: #"{"notifications":[{"tokens":[\#(quoted)],"platform":1,"message":"Hello World iOS!"}]}"#)
            #expect(answer.status == 200)
            #expect(answer.body == #"{"counts":10,"logs":[],"success":"ok"}"#)
        }
        #expect(Set(run.accepted.map(\.token)) == Set(tokens))
        #expect(run.accepted.allSatisfy { $0.body.contains(#""alert":"Hello World iOS!""#) }, "\(run.accepted.map(\.body))")
    }

    /// A homeserver's `POST /_matrix/push/v1/notify` answered 200: every device is still sent the
    /// event after `kill -9`, once (the repeat the homeserver makes is not sent again).
    @Test func matrixNotificationSurvivesKill() async throws {
        let tokens = (0..<5).map { APNsTestBed.token($0) }
        let devices = tokens.map { token in
            #"{"app_id":"im.example.ios","pushkey":"\#(APNsTestBed.base64(hex: token))"}"#
        }.joined(separator: ",")
        let body = #"""
            {"notification":{"event_id":"$crash","room_id":"!r:example.org","type":"m.room.message","sender":"@a:example.org",
             "content":{"msgtype":"m.text","body":"survives"},"counts":{"unread":1},"devices":[\#(devices)]}}
            """#
        let compat = "compat:\n  matrix:\n    apps:\n      im.example.ios: {provider: apns}\n"
        let run = try await crashAndRestart(compat: compat, expected: Set(tokens)) { port in
            let answer = try await post("http://127.0.0.1:\(port)/_matrix/push/v1/notify", json: body)
            #expect(answer.status == 200)
            #expect(answer.body == #"{"rejected":[]}"#)
        }
        #expect(run.accepted.map { $0.token.lowercased() }.sorted() == tokens.sorted(), "each device once")
        #expect(run.accepted.allSatisfy { $0.body.contains(#""event_id":"$crash""#) }, "\(run.accepted.map(\.body))")
    }

    /// apns-ms's `POST /notification` answered 202 after its 5 s wait for a silent APNs: the
    /// notification stays queued and is delivered by the restarted process.
    @Test func apnsMSNotificationSurvivesKill() async throws {
        let apnsMSPort = try HeraldProcess.freePort()
        let tokens = (0..<3).map { APNsTestBed.token(100 + $0) }
        let compat = "compat:\n  apns_ms: {provider: apns, host: 127.0.0.1, port: \(apnsMSPort)}\n"
        let run = try await crashAndRestart(compat: compat, expected: Set(tokens)) { _ in
            // Side by side: each waits its 5 s for the first attempt's answer, which never comes.
            try await withThrowingTaskGroup(of: (String, Int, String).self) { group in
                for token in tokens {
                    group.addTask {
                        // compat.md §4.6's request (without `expires`, which would be long past at the restart).
                        let request = #"{"deviceToken":"\#(token)","payload":{"aps":{"alert":"Hi there!","sound":"default"},"customValues":{"weather":"It will be sunny today"}},"identifier":"0507e79b","priority":10}"#
                        let answer = try await post("http://127.0.0.1:\(apnsMSPort)/notification", json: request)
                        return (token, answer.status, answer.body)
                    }
                }
                for try await (token, status, body) in group {
                    #expect(status == 202, "\(body)")
                    #expect(
                        body == #"{"deviceToken":"\#(token)","payload":{"aps":{"alert":"Hi there!","sound":"default"},"weather":"It will be sunny today"},"identifier":"0507e79b","priority":10}"#)
                }
            }
        }
        #expect(Set(run.accepted.map(\.token)) == Set(tokens))
        for accepted in run.accepted {
            #expect(accepted.body == #"{"aps":{"alert":"Hi there!","sound":"default"},"weather":"It will be sunny today"}"#)
            #expect(accepted.header("apns-priority") == "10")
        }
    }

    /// A Choominator notification datagram to a group of registered devices: each device is
    /// still notified after `kill -9`.
    @Test func choominatorNotificationSurvivesKill() async throws {
        let registrationPort = try HeraldProcess.freePort()
        let notificationPort = try HeraldProcess.freePort()
        let tokens = (0..<3).map { APNsTestBed.token(200 + $0) }
        let compat = """
            compat:
              choominator: {provider: apns, host: 127.0.0.1, registration_port: \(registrationPort), notification_port: \(notificationPort)}

            """
        let run = try await crashAndRestart(compat: compat, expected: Set(tokens)) { port in
            for token in tokens { try sendDatagram(#"{"device":"\#(token)","group":"scores"}"#, to: registrationPort) }
            // Datagrams get no reply: the group's statistics show when all three are registered,
            // and a notification sent earlier would miss the late ones.
            try await eventually(limit: .seconds(20)) {
                let statistics = try await get("http://127.0.0.1:\(port)/event/scores")
                guard statistics.status == 200 else { return false }
                let object = try JSONSerialization.jsonObject(with: Data(statistics.body.utf8)) as? [String: Any]
                return object?["subscribers"] as? Int == tokens.count
            }
            try sendDatagram(#"{"groups":["scores"],"type":"urgent","key":"score-update","payload":{"aps":{"alert":"Goal!"}}}"#, to: notificationPort)
        }
        #expect(Set(run.accepted.map(\.token)) == Set(tokens))
        for accepted in run.accepted {
            #expect(accepted.body == #"{"aps":{"alert":"Goal!"}}"#)
            #expect(accepted.header("apns-push-type") == "alert")
            #expect(accepted.header("apns-priority") == "10")
            #expect(accepted.header("apns-collapse-id") == "score-update")
        }
    }

    /// push2mob's APNs socket answered `OK <ids>`: every token is still delivered after `kill -9`.
    @Test func push2mobSendSurvivesKill() async throws {
        let zmqPort = try HeraldProcess.freePort()
        let tokens = (0..<3).map { APNsTestBed.token(300 + $0) }
        let compat = "compat:\n  push2mob: {apns_provider: apns, apns_bind: \"tcp://127.0.0.1:\(zmqPort)\"}\n"
        let run = try await crashAndRestart(compat: compat, expected: Set(tokens)) { _ in
            let context = try ZeroMQContext()
            let client = try ZeroMQSocket(.request, context: context)
            do {
                // A REQ socket connects (and reconnects) in the background: the request waits for the bind.
                try await client.connect("tcp://127.0.0.1:\(zmqPort)")
                let request = "send +86400 3 \(tokens.joined(separator: " ")) {\"aps\":{\"alert\":\"push2mob\"}}"
                let reply = String(decoding: try await client.request(Array(request.utf8), timeout: .seconds(30)), as: UTF8.self)
                let ids = reply.split(separator: " ").dropFirst().compactMap { Int64($0) }
                #expect(reply.hasPrefix("OK ") && ids.count == 3 && ids == Array(ids[0]..<ids[0] + 3), "\(reply)")
            } catch {
                await client.close()
                await context.terminate()
                throw error
            }
            await client.close()
            await context.terminate()
        }
        #expect(Set(run.accepted.map(\.token)) == Set(tokens))
        #expect(run.accepted.allSatisfy { $0.body == #"{"aps":{"alert":"push2mob"}}"# }, "\(run.accepted.map(\.body))")
    }

    /// suj-pusher's messages taken off the Redis list (compat.md §2.2): `kill -9` while some are on
    /// the list, one may be between the list and the store, and the stored ones are in flight loses
    /// none of them.
    @Test func sujPusherMessagesSurviveKill() async throws {
        let redis = try await RedisTestServer.start()
        let client = RedisConnection(url: redis.url())
        do {
            let authority = try SimulatorCertificateAuthority(directory: TestHerald.makeTemporaryDirectory())
            let certificate = try authority.issueClientCertificate(topic: "com.example.app")
            let pem = try #require(String(data: try JSONEncoder().encode(certificate.certificatePEM + "\n" + certificate.privateKeyPEM), encoding: .utf8))
            let apnsPort = try HeraldProcess.freePort()
            let endpoint = "https://127.0.0.1:\(apnsPort)"
            let tokens = (0..<40).map { APNsTestBed.token(400 + $0) }
            let compat = """
                outbound:
                  ca_file: \(try #require(authority.caCertificateFile))
                compat:
                  suj_pusher: {redis: "redis://127.0.0.1:\(redis.port)/0", apns_endpoints: {production: "\(endpoint)", sandbox: "\(endpoint)"}}
                """
            let run = try await crashAndRestart(
                compat: compat, expected: Set(tokens), certificateAuthentication: true,
                configure: { configuration in
                    configuration.port = apnsPort
                    configuration.certificateAuthority = authority
                }
            ) { _ in
                // One message per token, so that the kill finds some still on the list.
                for token in tokens {
                    let message = #"{"apn_ids":["\#(token)"],"cert":\#(pem),"data":{"aps":{"alert":"suj"}}}"#
                    _ = try await client.send(["LPUSH", "pusher:suj_pusher_msgs", message])
                }
            }
            #expect(Set(run.accepted.map { $0.token.lowercased() }) == Set(tokens))
            #expect(try await client.send(["LLEN", "pusher:suj_pusher_msgs"]).integer == 0)
            #expect(try await client.send(["LLEN", "pusher:suj_pusher_processing:0"]).integer == 0, "nothing left half-taken")
        } catch {
            await client.close()
            await redis.stop()
            throw error
        }
        await client.close()
        await redis.stop()
    }
}
