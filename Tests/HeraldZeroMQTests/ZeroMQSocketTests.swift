import HeraldZeroMQ
import Testing

/// The async ZeroMQ layer against real libzmq sockets over TCP on the loopback.
@Suite struct ZeroMQSocketTests {
    /// A reply socket on a free port, serving `handler` in a task, and a request socket connected to it.
    private func withServer(
        _ handler: @escaping @Sendable (ZeroMQMessage) async -> [UInt8],
        _ body: (ZeroMQSocket, ZeroMQContext, String) async throws -> Void
    ) async throws {
        let context = try ZeroMQContext()
        let server = try ZeroMQSocket(.reply, context: context, name: "test-rep")
        let endpoint = try await server.bind("tcp://127.0.0.1:*")
        let serving = Task { try await server.serve(handler) }
        let client = try ZeroMQSocket(.request, context: context, name: "test-req")
        try await client.connect(endpoint)
        do {
            try await body(client, context, endpoint)
        } catch {
            await client.close()
            server.stopReceiving()
            _ = try? await serving.value
            await server.close()
            await context.terminate()
            throw error
        }
        await client.close()
        server.stopReceiving()
        try await serving.value
        await server.close()
        await context.terminate()
    }

    @Test func bindReportsTheChosenPort() async throws {
        let context = try ZeroMQContext()
        let socket = try ZeroMQSocket(.reply, context: context)
        let endpoint = try await socket.bind("tcp://127.0.0.1:*")
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        #expect(Int(endpoint.split(separator: ":").last ?? "") ?? 0 > 0)
        await socket.close()
        await context.terminate()
    }

    @Test func requestsAreAnsweredInOrderWithThePeerAddress() async throws {
        try await withServer({ message in
            Array("echo \(message.peerAddress ?? "-") ".utf8) + message.bytes
        }) { client, _, _ in
            for index in 0..<20 {
                let reply = try await client.request(Array("hello \(index)".utf8), timeout: .seconds(30))
                #expect(String(decoding: reply, as: UTF8.self) == "echo 127.0.0.1 hello \(index)")
            }
            // An empty message is a message too.
            #expect(try await client.request([], timeout: .seconds(30)) == Array("echo 127.0.0.1 ".utf8))
        }
    }

    @Test func manyClientsAreServed() async throws {
        try await withServer({ message in message.bytes.reversed() }) { _, context, endpoint in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<8 {
                    group.addTask {
                        let socket = try ZeroMQSocket(.request, context: context, name: "test-req-\(client)")
                        try await socket.connect(endpoint)
                        for index in 0..<10 {
                            let text = "client \(client) request \(index)"
                            let reply = try await socket.request(Array(text.utf8), timeout: .seconds(30))
                            #expect(reply == Array(text.utf8).reversed())
                        }
                        await socket.close()
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func aBindFailureIsAnError() async throws {
        let context = try ZeroMQContext()
        let first = try ZeroMQSocket(.reply, context: context)
        let endpoint = try await first.bind("tcp://127.0.0.1:*")
        let second = try ZeroMQSocket(.reply, context: context)
        await #expect(throws: ZeroMQError.self) { try await second.bind(endpoint) }
        await #expect(throws: ZeroMQError.self) { try await second.bind("nonsense://x") }
        await second.close()
        await first.close()
        await context.terminate()
    }

    @Test func aReceiveEndsWhenItsTaskIsCancelled() async throws {
        let context = try ZeroMQContext()
        let socket = try ZeroMQSocket(.reply, context: context)
        try await socket.bind("tcp://127.0.0.1:*")
        let waiting = Task { () throws(ZeroMQError) -> ZeroMQMessage in try await socket.receive() }
        waiting.cancel()
        await #expect(throws: ZeroMQError.cancelled) { try await waiting.value }
        // The socket still works after a cancelled receive.
        await #expect(throws: ZeroMQError.timedOut) { try await socket.receive(timeout: .milliseconds(1)) }
        await socket.close()
        await context.terminate()
    }

    @Test func closingEndsWhatWaitsAndLaterCallsFail() async throws {
        let context = try ZeroMQContext()
        let socket = try ZeroMQSocket(.reply, context: context)
        try await socket.bind("tcp://127.0.0.1:*")
        let waiting = Task { () throws(ZeroMQError) -> ZeroMQMessage in try await socket.receive() }
        await socket.close()
        await #expect(throws: ZeroMQError.closed) { try await waiting.value }
        await #expect(throws: ZeroMQError.closed) { try await socket.send([1]) }
        await socket.close()
        await context.terminate()
    }

    @Test func stopReceivingLetsTheHeldRequestBeAnswered() async throws {
        let context = try ZeroMQContext()
        let server = try ZeroMQSocket(.reply, context: context)
        let endpoint = try await server.bind("tcp://127.0.0.1:*")
        let client = try ZeroMQSocket(.request, context: context)
        try await client.connect(endpoint)
        try await client.send(Array("last".utf8))
        let request = try await server.receive(timeout: .seconds(30))
        server.stopReceiving()
        try await server.send(request.bytes + Array(" answered".utf8))
        #expect(try await client.receive(timeout: .seconds(30)).bytes == Array("last answered".utf8))
        await #expect(throws: ZeroMQError.closed) { try await server.receive() }
        await client.close()
        await server.close()
        await context.terminate()
    }

    @Test func theLibraryVersionIsKnown() {
        // A REQ socket sends single frames; libzmq's version is reported for the logs.
        #expect(ZeroMQContext.libraryVersion.split(separator: ".").count == 3)
    }
}
