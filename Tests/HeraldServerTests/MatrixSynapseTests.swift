import Foundation
import HeraldTestSupport
import Testing

/// The Matrix push gateway behind a real homeserver: Synapse (PyPI `matrix-synapse`, installed once
/// into a cached virtual environment by `scripts/synapse`) has one user message another, and POSTs
/// the notifications to Herald's `/_matrix/push/v1/notify` as it would to Sygnal.
///
/// `scripts/synapse_driver.py` runs the homeserver and the two users one step at a time; after a
/// message it reports what became of every pusher as Synapse's own tables record it (delivered,
/// removed after a rejection, failed).
@Suite struct MatrixSynapseTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func synapsePushesThroughHeraldAndDropsThePushersHeraldRejects() async throws {
        let python = try await Self.output(of: [Self.repository.appendingPathComponent("scripts/synapse").path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try await withAPNsAndFCMHerald(yaml: { MatrixGatewayTests.yaml(apns: $0, fcm: $1) }) { herald, apns, fcm in
            let url = "http://127.0.0.1:\(herald.port)/_matrix/push/v1/notify"
            let live = MatrixGatewayTests.pushkey(hex: APNsTestBed.token(1))
            let dead = MatrixGatewayTests.pushkey(hex: APNsTestBed.token(2))
            apns.simulator.unregister(token: APNsTestBed.token(2), at: 1_700_000_000_000)
            let fcmToken = MatrixGatewayTests.fcmToken
            let pushers = [
                #"{"app_id":"im.example.ios","pushkey":"\#(live)","url":"\#(url)"}"#,
                #"{"app_id":"im.example.ios","pushkey":"\#(dead)","url":"\#(url)"}"#,
                #"{"app_id":"im.example.android.app","pushkey":"\#(fcmToken)","url":"\#(url)"}"#,
                #"{"app_id":"im.unknown","pushkey":"no-such-app","url":"\#(url)"}"#,
            ]
            let driver = try SynapseDriver.start(
                python: python, script: Self.repository.appendingPathComponent("scripts/synapse_driver.py").path,
                arguments: ["--work", TestHerald.makeTemporaryDirectory()] + pushers.flatMap { ["--pusher", $0] })
            do {
                let ready = try #require(try await driver.next()["ready"] as? [String: Any])
                let roomID = try #require(ready["room_id"] as? String)

                // The first message: the unknown app's pusher is rejected and removed; the others
                // are answered 200, including the token APNs is about to call dead.
                let first = try await driver.command(#"{"message":"deploy done"}"#)
                #expect(Self.outcomes(first) == ["\(dead) delivered", "\(fcmToken) delivered", "\(live) delivered", "no-such-app removed"].sorted())
                let firstEvent = try #require(first["event_id"] as? String)

                try await eventually { apns.simulator.acceptedCount == 1 }
                let sent = try #require(apns.simulator.accepted().first)
                #expect(sent.token.lowercased() == APNsTestBed.token(1))
                let payload = try Self.object(sent.body)
                #expect(payload["event_id"] as? String == firstEvent)
                #expect(payload["room_id"] as? String == roomID)
                let aps = try #require(payload["aps"] as? [String: Any])
                let alert = try #require(aps["alert"] as? [String: Any])
                #expect(alert["loc-key"] as? String == "MSG_FROM_USER_WITH_CONTENT", "a message in a room without a name")
                #expect(alert["loc-args"] as? [String] == ["alice", "deploy done"])
                #expect(aps["badge"] as? Int == 1, "one unread")

                try await eventually { fcm.simulator.acceptedCount == 1 }
                let message = try #require(fcm.simulator.accepted().first)
                let data = try #require((try Self.object(message.body)["message"] as? [String: Any])?["data"] as? [String: String])
                #expect(data["event_id"] == firstEvent)
                #expect(data["room_id"] == roomID)
                #expect(data["sender"] == "@alice:localhost")
                #expect(data["content_body"] == "deploy done")
                #expect(data["unread"] == "1")

                // APNs answered 410 for the dead token: Herald rejects it at the next notification,
                // and Synapse deletes that pusher.
                try await eventually {
                    try await RawSendTests.entries(herald, "/feedback?origin=matrix").contains { $0["token"] as? String == APNsTestBed.token(2) }
                }
                let second = try await driver.command(#"{"message":"second"}"#)
                #expect(Self.outcomes(second) == ["\(dead) removed", "\(fcmToken) delivered", "\(live) delivered"].sorted())
                let left = try #require(second["pushers_after"] as? [[String: String]])
                #expect(Set(left.compactMap { $0["pushkey"] }) == [live, fcmToken])
                try await eventually { apns.simulator.acceptedCount == 2 }

                // Bob reads the room: Synapse pushes the unread count, which Herald sends as a badge update.
                _ = try await driver.command(#"{"read":true}"#)
                try await eventually { apns.simulator.acceptedCount == 3 }
                let update = try #require(apns.simulator.accepted().last)
                #expect(try Self.object(update.body)["aps"] as? [String: Int] == ["badge": 0])
                _ = try? await driver.command(#"{"quit":true}"#, answered: false)
                try await driver.finish()
            } catch {
                driver.kill()
                throw error
            }
        }
    }

    static func outcomes(_ answer: [String: Any]) -> [String] {
        ((answer["push_outcomes"] as? [[String: String]]) ?? []).map { "\($0["pushkey"] ?? "") \($0["outcome"] ?? "")" }.sorted()
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Runs a program to completion on a thread of its own; returns its standard output, or throws
    /// with its standard error when it fails.
    static func output(of arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: arguments[0])
                    process.arguments = Array(arguments.dropFirst())
                    // Standard output to a file: reading one pipe to its end while the child fills the other would deadlock.
                    let outputFile = NSTemporaryDirectory() + "/matrix-synapse-\(UUID().uuidString)"
                    _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
                    defer { try? FileManager.default.removeItem(atPath: outputFile) }
                    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
                    let errors = Pipe()
                    process.standardError = errors
                    try process.run()
                    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitUntilExit()
                    guard process.terminationStatus == 0 else { throw DriverFailure(description: "\(arguments[0]) failed:\n\(stderr)") }
                    return (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
                })
            }
        }
    }

    struct DriverFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// `scripts/synapse_driver.py` as a child process: commands on its stdin, one JSON line back for each.
    /// Used by one test task only, so not `Sendable`: its reader thread shares only the stream's continuation.
    final class SynapseDriver {
        let process: Process
        let input: FileHandle
        var lines: AsyncStream<String>.Iterator
        let stderrFile: String

        private init(process: Process, input: FileHandle, lines: AsyncStream<String>, stderrFile: String) {
            self.process = process
            self.input = input
            self.lines = lines.makeAsyncIterator()
            self.stderrFile = stderrFile
        }

        static func start(python: String, script: String, arguments: [String]) throws -> SynapseDriver {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script] + arguments
            let stdin = Pipe()
            let stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            let stderrFile = NSTemporaryDirectory() + "/synapse-driver-\(UUID().uuidString).log"
            _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrFile))
            let (lines, continuation) = AsyncStream.makeStream(of: String.self)
            let reader = stdout.fileHandleForReading
            // A thread of its own: the reads block until the driver writes.
            Thread.detachNewThread {
                var pending = Data()
                while true {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending = Data(pending[pending.index(after: newline)...])
                    }
                }
                continuation.finish()
            }
            try process.run()
            return SynapseDriver(process: process, input: stdin.fileHandleForWriting, lines: lines, stderrFile: stderrFile)
        }

        /// The next line the driver prints, as a JSON object; its standard error when it ended instead.
        func next() async throws -> [String: Any] {
            guard let line = await lines.next() else {
                try await waitUntilExit()
                let stderr = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
                throw DriverFailure(description: "the Synapse driver ended (status \(process.terminationStatus)):\n\(stderr)")
            }
            return try MatrixSynapseTests.object(line)
        }

        /// Sends one command and, unless told otherwise, reads its answer.
        @discardableResult
        func command(_ json: String, answered: Bool = true) async throws -> [String: Any] {
            try input.write(contentsOf: Data((json + "\n").utf8))
            return answered ? try await next() : [:]
        }

        /// Closes its stdin and waits for it to stop Synapse and exit 0.
        func finish() async throws {
            try? input.close()
            try await waitUntilExit()
            let stderr = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
            #expect(process.terminationStatus == 0, "\(stderr)")
        }

        /// Polls: waiting on a cooperative thread would block it, and the driver ends within seconds.
        private func waitUntilExit() async throws {
            while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        }

        func kill() {
            if process.isRunning { process.terminate() }
        }
    }
}
