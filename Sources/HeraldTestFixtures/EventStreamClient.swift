import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization

/// A real Server-Sent Events client: keeps `GET /subscribe` open and collects what arrives.
public final class EventStreamClient: Sendable {
    /// The response status.
    public let status: Int
    /// The response headers.
    public let headers: HTTPHeaders
    private let text = Mutex("")
    private let reader = Mutex<Task<Void, Never>?>(nil)

    private init(status: Int, headers: HTTPHeaders) {
        self.status = status
        self.headers = headers
    }

    /// Opens the stream at `url`.
    public static func connect(_ url: String, headers: [(String, String)] = [("Accept", "text/event-stream")]) async throws -> EventStreamClient {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, deadline: .distantFuture)
        let client = EventStreamClient(status: Int(response.status.code), headers: response.headers)
        let task = Task {
            do {
                for try await chunk in response.body {
                    client.text.withLock { $0 += String(buffer: chunk) }
                }
            } catch {}
        }
        client.reader.withLock { $0 = task }
        return client
    }

    /// Everything received so far.
    public var received: String { text.withLock { $0 } }

    /// Waits until the received text contains `fragment`.
    public func waitFor(_ fragment: String, limit: Duration = .seconds(30)) async throws {
        try await eventually(limit: limit) { self.received.contains(fragment) }
    }

    /// Waits until the server ends the stream (or ``close()`` is called).
    public func waitForEnd() async {
        await reader.withLock { $0 }?.value
    }

    /// Closes the connection.
    public func close() {
        reader.withLock { $0 }?.cancel()
    }
}
