import HeraldTestSupport
import NIOCore
import NIOPosix
import Testing

/// Slow clients cannot hold connections: the head and the body each have a deadline.
@Suite struct SlowClientTests {
    private static let yaml = """
        server:
          header_timeout: 0.3
          body_timeout: 0.3
        """

    /// Connects, sends `bytes`, sends nothing more, and returns what the server sent before closing
    /// (or `nil` if it kept the connection open for 30 s).
    private func sendAndWaitForClose(port: Int, _ bytes: String) async throws -> String? {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            // On a loaded machine the server's deadline may pass before the client gets to write: the
            // connection is then already closed, which is what the caller looks for.
            try? await outbound.write(ByteBuffer(string: bytes))
            return try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    var received = ""
                    // A close with unread request bytes is a reset (ECONNRESET), not an orderly end: both mean closed.
                    do {
                        for try await buffer in inbound { received += String(buffer: buffer) }
                    } catch {}
                    return received
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(30))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }
    }

    @Test func incompleteHeadIsDisconnected() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let received = try await sendAndWaitForClose(port: herald.port, "POST /event/e HTTP/1.1\r\nHost: x\r\n")
            #expect(received == "", "closed without an answer")
        }
    }

    @Test func incompleteBodyIsDisconnected() async throws {
        try await withHerald(yaml: Self.yaml) { herald in
            let head = "POST /event/e HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nmsg="
            let received = try await sendAndWaitForClose(port: herald.port, head)
            #expect(received == "")
            #expect(try await herald.application.store.counts().jobs == 0, "nothing was published")
        }
    }

    @Test func keptAliveConnectionServesRequestsThenTimesOutWhenIdle() async throws {
        // Long enough that a loaded machine still reads the complete head in time; the close after the answer
        // only makes the test wait.
        try await withHerald(yaml: "server:\n  header_timeout: 3\n") { herald in
            // A complete request is answered; the connection then waits for the next head and is closed.
            let received = try await sendAndWaitForClose(port: herald.port, "GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(received?.hasPrefix("HTTP/1.1 204") == true, "\(received ?? "still open")")
        }
    }
}
