import HeraldCore
import HeraldIntake
import HeraldZeroMQ
import Logging
import ServiceLifecycle

/// One push2mob ZeroMQ REP socket (compat.md §3.1): binds its endpoint, answers every request
/// with exactly one reply (`OK ...` or `ERROR ...`), and on shutdown answers the request it holds,
/// then closes.
///
/// A REP socket serves one request at a time: each send is committed to the store before the
/// next request is read, so requests are served in arrival order.
struct Push2mobSocketService<Handler: Push2mobSocketHandler>: Service, CustomStringConvertible {
    var description: String { "Push2mobSocketService(\(handler.socket))" }

    let endpoint: String
    /// The configuration key of the endpoint, for a bind failure's message.
    let key: String
    let handler: Handler
    /// The source addresses allowed (`server.acl.publish`); `nil`: everyone.
    let acl: AccessList?
    let rateLimiter: RateLimiter
    let metrics: FrontEndRequestCounter
    let logger: Logger
    /// Learns the endpoint bound (its port, when the configuration asked for `*`).
    let onBound: @Sendable (_ endpoint: String) -> Void

    func run() async throws {
        let context = try ZeroMQContext()
        let socket: ZeroMQSocket
        let bound: String
        do {
            socket = try ZeroMQSocket(.reply, context: context, name: "push2mob-\(handler.socket)")
            do {
                bound = try await socket.bind(endpoint)
            } catch {
                await socket.close()
                throw error
            }
        } catch {
            await context.terminate()
            throw Push2mobBindError(key: key, endpoint: endpoint, reason: "\(error)")
        }
        logger.info("push2mob socket listening", metadata: ["socket": "\(handler.socket)", "endpoint": "\(bound)"])
        onBound(bound)
        do {
            try await withGracefulShutdownHandler {
                try await socket.serve { request in Array(await answer(request).utf8) }
            } onGracefulShutdown: {
                socket.stopReceiving()
            }
        } catch {
            logger.error("push2mob socket failed", metadata: ["socket": "\(handler.socket)", "error": "\(error)"])
            await socket.close()
            await context.terminate()
            throw error
        }
        await socket.close()
        await context.terminate()
    }

    /// The reply to one request; a refusal is logged at debug level and answered `ERROR ...`.
    func answer(_ request: ZeroMQMessage) async -> String {
        do throws(Push2mobRefusal) {
            if let acl {
                guard let address = request.peerAddress.flatMap(IPAddress.init), acl.allows(address) else { throw .unauthorized }
            }
            guard rateLimiter.admit(.publish, client: RateLimitClient(address: request.peerAddress)).isAdmitted else { throw .rateLimited }
            guard !request.wasMultipart else { throw .invalidInput }
            switch try Push2mobCommand(request.bytes) {
            case .send(let arguments):
                let reply = try await handler.send(arguments)
                metrics.count(handler.socket, result: "sent")
                return reply
            case .feedback:
                let reply = try await handler.feedback()
                metrics.count(handler.socket, result: "feedback")
                return reply
            }
        } catch {
            metrics.count(handler.socket, result: "refused", reason: error.reason)
            logger.debug(
                "push2mob request refused",
                metadata: ["socket": "\(handler.socket)", "peer": "\(request.peerAddress ?? "-")", "reply": "\(error.reply)"])
            return error.reply
        }
    }
}
