import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The HTTP/1.1 server under the WNS, MPNS and legacy GCM simulators: a Hummingbird application over TLS with the
/// simulator CA's server certificate, bound to a loopback port, started and stopped on demand.
///
/// It lives in the WNS folder because the three simulators share it; it belongs in `Support` if others need it.
final class HTTP1SimulatorServer: Sendable {
    private struct Running: Sendable {
        var group: ServiceGroup
        var task: Task<Void, Never>
        var port: Int
    }

    /// How long a graceful stop may take before connections are cut.
    static let stopGracePeriod: Duration = .seconds(2)

    private enum State: Sendable {
        case idle
        case starting(Task<Running, any Error>)
        case running(Running)
    }

    private enum StartStep {
        case ready(Int)
        case wait(Task<Running, any Error>)
    }

    private let name: String
    private let host: String
    private let requestedPort: Int
    private let certificateAuthority: SimulatorCertificateAuthority?
    private let logger: Logger
    private let responder: RouterResponder<BasicRequestContext>
    private let state = Mutex<State>(.idle)

    /// A server called `name` (for logs) that will answer with `router` over TLS with `certificateAuthority`'s server
    /// certificate; `nil` serves cleartext HTTP/1.1.
    init(
        name: String, host: String, port: Int, certificateAuthority: SimulatorCertificateAuthority?, logger: Logger,
        router: Router<BasicRequestContext>
    ) {
        self.name = name
        self.host = host
        self.requestedPort = port
        self.certificateAuthority = certificateAuthority
        self.logger = logger
        self.responder = router.buildResponder()
    }

    /// The bound port while the server runs.
    var port: Int? {
        state.withLock { state in
            if case .running(let running) = state { return running.port }
            return nil
        }
    }

    /// Binds and starts serving; returns the bound port (the same one when already running or starting).
    func start() async throws -> Int {
        let step = state.withLock { state -> StartStep in
            switch state {
            case .running(let running):
                return .ready(running.port)
            case .starting(let task):
                return .wait(task)
            case .idle:
                let task = Task { try await self.launch() }
                state = .starting(task)
                return .wait(task)
            }
        }
        switch step {
        case .ready(let port):
            return port
        case .wait(let task):
            do {
                let running = try await task.value
                state.withLock { state in
                    if case .starting = state { state = .running(running) }
                }
                return running.port
            } catch {
                state.withLock { state in
                    if case .starting = state { state = .idle }
                }
                throw error
            }
        }
    }

    /// Stops listening and closes every connection.
    func stop() async {
        let current = state.withLock { state -> State in
            defer { state = .idle }
            return state
        }
        let running: Running?
        switch current {
        case .idle: running = nil
        case .running(let value): running = value
        case .starting(let task): running = try? await task.value
        }
        guard let running else { return }
        // A graceful shutdown closes the listener and idle connections; requests in flight (an injected delay) may
        // finish within the grace period, then cancellation cuts whatever is left.
        await running.group.triggerGracefulShutdown()
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await running.task.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: Self.stopGracePeriod)
                return false
            }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
        if !stopped {
            running.task.cancel()
            await running.task.value
        }
        logger.info("\(name) simulator stopped")
    }

    private func launch() async throws -> Running {
        let (bound, boundContinuation) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let configuration = ApplicationConfiguration(address: .hostname(host, port: requestedPort), reuseAddress: true)
        let onServerRunning: @Sendable (any Channel) async -> Void = { channel in
            boundContinuation.yield(.success(channel.localAddress?.port ?? 0))
        }
        let application: Application<RouterResponder<BasicRequestContext>>
        if let certificateAuthority {
            var tls = try certificateAuthority.serverTLSConfiguration(applicationProtocols: ["http/1.1"])
            // Closing a connection waits this long for the client's close_notify; clients that simply drop the
            // socket would otherwise hold ``stop()`` for NIOSSL's default of 5 seconds.
            tls.shutdownTimeout = .milliseconds(250)
            application = Application(
                responder: responder, server: try .tls(.http1(), tlsConfiguration: tls), configuration: configuration,
                onServerRunning: onServerRunning, logger: logger)
        } else {
            application = Application(
                responder: responder, server: .http1(), configuration: configuration, onServerRunning: onServerRunning, logger: logger)
        }
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let task = Task {
            do {
                try await group.run()
            } catch {
                // A failed bind ends here before any port was reported.
                boundContinuation.yield(.failure(error))
            }
            boundContinuation.finish()
        }
        var port = 0
        for await result in bound {
            switch result {
            case .success(let value): port = value
            case .failure(let error): throw error
            }
            break
        }
        guard port > 0 else {
            task.cancel()
            throw HTTP1SimulatorServerError(name: name)
        }
        logger.info("\(name) simulator listening", metadata: ["address": "\(host):\(port)", "tls": "\(certificateAuthority != nil)"])
        return Running(group: group, task: task, port: port)
    }
}
