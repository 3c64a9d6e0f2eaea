import HeraldCore
import HeraldIntake
import HTTPTypes
import Hummingbird

/// The apns-ms port's routing (compat.md §4.1): exact paths as Go's `ServeMux` matched them
/// (the query ignored), 405 for another method on a route, Go's 404 for any other path, and
/// `server.acl.publish` checked by source address on the two routes (§1.1), and
/// `server.rate_limit.publish` per source address on `POST /notification`.
struct ApnsMSResponder: HTTPResponder {
    typealias Context = ApnsMSRequestContext

    let notification: ApnsMSNotificationRoute
    let expiredDevices: ApnsMSExpiredDevicesRoute
    /// The source addresses allowed; `nil`: everyone.
    let acl: AccessList?
    /// The node's per-client limits.
    let rateLimiter: RateLimiter

    func respond(to request: Request, context: Context) async throws -> Response {
        switch request.uri.path {
        case "/notification":
            guard request.method == .post else { return ApnsMSError.methodNotAllowed.response }
            guard isAllowed(context) else { return ApnsMSError.unauthorized.response }
            // Before the body is read, so a refused client costs little; the refusal is apns-ms's
            // own overload answer (compat.md §4.3 check 4), which its clients already handle.
            let client = RateLimitClient(address: context.remoteAddress?.ipAddress)
            if case .refused(let seconds) = rateLimiter.admit(.publish, client: client) {
                return ApnsMSError.rateLimited(retryAfterSeconds: seconds).response
            }
            guard let body = try? await request.body.collect(upTo: ApnsMSNotificationRoute.maxBodySize) else {
                return ApnsMSError.bodyTooLarge.response
            }
            return await notification.handle(Array(body.readableBytesView))
        case "/expired-devices":
            guard request.method == .get else { return ApnsMSError.methodNotAllowed.response }
            guard isAllowed(context) else { return ApnsMSError.unauthorized.response }
            return await expiredDevices.handle()
        default:
            return ApnsMSError.notFound.response
        }
    }

    private func isAllowed(_ context: Context) -> Bool {
        guard let acl else { return true }
        guard let text = context.remoteAddress?.ipAddress, let address = IPAddress(text) else { return false }
        return acl.allows(address)
    }
}
